import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

const recorder = join(import.meta.dirname, "fixtures", "record-loads.mjs");

/** The packages (under node_modules) a CLI invocation loaded. */
function packagesLoaded(args: string[], exitCode = 0): Set<string> {
  const file = join(tempDir("switch-swe-loads-"), "loads.txt");
  const r = spawnSync(process.execPath, ["--import", recorder, cliPath, ...args], {
    env: { ...process.env, RECORD_LOADS_FILE: file },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(exitCode);
  const urls = readFileSync(file, "utf8").split("\n");
  return new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
}

// Every command starts the CLI, and the suite and a run's harness start it hundreds of times: the
// libraries of the queue (BullMQ, its Redis client), of model calls (the AI SDK) and of `rcm eval`'s
// token counts cost about 0.6 s of CPU to load, so a command that does not use them must not load them.
describe("the CLI's start-up", () => {
  it("loads neither the queue's, nor the model client's, nor the tokenizer's libraries for a command that uses none", () => {
    const loaded = packagesLoaded(["sessions", "build", "--help"]);
    expect(loaded.has("commander")).toBe(true);
    for (const heavy of ["bullmq", "ioredis", "ai", "@ai-sdk/openai-compatible", "gpt-tokenizer"])
      expect(loaded.has(heavy), heavy).toBe(false);
  });

  it("still loads the queue's libraries for the queue's own commands", () => {
    // Port 1 answers no one: bad input (exit 2) once the queue's client has been loaded and tried.
    const loaded = packagesLoaded(["queue", "status", "redis://127.0.0.1:1/0"], 2);
    expect(loaded.has("bullmq") || loaded.has("ioredis")).toBe(true);
  });
});
