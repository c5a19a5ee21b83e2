#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { packageVersion } from "../core/package-paths.js";
import { InputError } from "../core/errors.js";
import { DiskFull, firstLine, isDiskFull } from "../core/disk-full.js";
import { registerCommands } from "./commands/index.js";
import { layOutHelp } from "./help-layout.js";
import { ExitCode } from "./exit-codes.js";
import { usageErrorLine } from "./usage-error.js";

// A closed pipe (`switch-swe report | head`, a supervisor that stopped reading) is the reader's
// choice, not an error: what is written after it is dropped. The command still ends as it would have,
// with its own exit code: exiting here would turn a `run` stopped by SIGTERM (whose notice goes to a
// closed stderr) into exit 0, before it stopped its agents.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
  });
}

const program = new Command();
program
  .name("switch-swe")
  .description("Measure and improve how coding agents resume unfinished work.")
  .version(packageVersion)
  .exitOverride();
registerCommands(program);
layOutHelp(program);
for (const cmd of [program, ...allCommands(program)]) {
  cmd.exitOverride();
  cmd.configureOutput({ outputError: (text, write) => write(usageErrorLine(commandPath(cmd), text)) });
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

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
  } else if (e instanceof DiskFull) {
    process.stderr.write(`switch-swe: ${e.message}\n`);
    process.exitCode = ExitCode.diskFull;
  } else if (isDiskFull(e)) {
    process.stderr.write(`switch-swe: the disk is full (${firstLine(e)}): free space, then run the command again\n`);
    process.exitCode = ExitCode.diskFull;
  } else {
    process.stderr.write(`switch-swe: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 3;
  }
}
