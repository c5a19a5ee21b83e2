import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { inputError } from "../core/errors.js";
import { processAlive } from "../core/process.js";

/**
 * One process per run directory. A lock left by a process that no longer exists (kill -9) is taken over;
 * a live one is bad input. Returns the function that releases the lock.
 */
export const runLockName = "run.lock";

export function acquireRunLock(runDir: string): () => void {
  const file = join(runDir, runLockName);
  const me = `${process.pid} ${hostname()}\n`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, me);
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const [pidText, host] = readFileSync(file, "utf8").trim().split(" ");
      const pid = Number(pidText);
      if (host === hostname() && Number.isInteger(pid) && processAlive(pid)) {
        throw inputError(runDir, "", `in use by another switch-swe run (pid ${pid})`);
      }
      rmSync(file, { force: true });
    }
  }
  throw inputError(runDir, "", "cannot take the run lock");
}
