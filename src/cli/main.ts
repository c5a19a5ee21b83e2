#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { packageVersion } from "../core/package-paths.js";
import { InputError } from "../core/errors.js";
import { registerCommands } from "./commands/index.js";
import { ExitCode } from "./exit-codes.js";

// `switch-swe report | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const program = new Command();
program
  .name("switch-swe")
  .description("Measure and improve how coding agents resume unfinished work.")
  .version(packageVersion)
  .showHelpAfterError()
  .exitOverride();
registerCommands(program);
for (const cmd of allCommands(program)) cmd.exitOverride();

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end through here with exit code 0.
    process.exitCode = e.exitCode === 0 ? ExitCode.ok : ExitCode.badInput;
  } else if (e instanceof InputError) {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = ExitCode.badInput;
  } else {
    process.stderr.write(`switch-swe: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 3;
  }
}
