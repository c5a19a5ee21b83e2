import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { acquireRunLock } from "../../src/run/run-lock.js";
import { tempDir } from "../helpers/temp.js";

/** A pid that no process has: one above the kernel's maximum. */
const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim()) + 1;

describe("the run lock", () => {
  it("takes over a lock whose process is gone, and an empty one (a crash while an old version wrote it)", () => {
    for (const content of [`${deadPid} ${hostname()}\n`, ""]) {
      const dir = tempDir();
      writeFileSync(join(dir, "run.lock"), content);
      const release = acquireRunLock(dir);
      expect(readFileSync(join(dir, "run.lock"), "utf8")).toBe(`${process.pid} ${hostname()}\n`);
      release();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("refuses a live one and leaves it as it was", () => {
    const dir = tempDir();
    const release = acquireRunLock(dir);
    expect(() => acquireRunLock(dir)).toThrow(`${dir}: in use by another switch-swe run (pid ${process.pid})`);
    expect(readdirSync(dir)).toEqual(["run.lock"]);
    release();
  });

  it("of many processes racing for one directory (fresh or with a stale lock), exactly one wins", async () => {
    const lockModule = pathToFileURL(join(packageRoot, "dist", "run", "run-lock.js")).href;
    const racer = `
      const { acquireRunLock } = await import(${JSON.stringify(lockModule)});
      try { acquireRunLock(process.argv[1]); console.log("won"); await new Promise((r) => setTimeout(r, 3000)); }
      catch (e) { console.log(e.message.includes("in use by another switch-swe run") ? "lost" : "error " + e.message); }`;
    for (const stale of [false, true]) {
      const dir = tempDir();
      if (stale) writeFileSync(join(dir, "run.lock"), `${deadPid} ${hostname()}\n`);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", racer, dir], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          child.stdout.on("data", (d: Buffer) => (out += d.toString()));
          return new Promise<string>((r) => child.on("close", () => r(out.trim())));
        }),
      );
      expect(
        results.filter((r) => r === "won"),
        results.join(", "),
      ).toHaveLength(1);
      expect(results.filter((r) => r === "lost")).toHaveLength(5);
    }
  });
});
