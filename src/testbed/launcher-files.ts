import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { TestRunner } from "./test-runner.js";

/** What every runner's launcher shares: its channel, its copy outside the checkout, the python that runs it. */

/** The fd on which the launcher writes its outcome records. */
export const channelFd = 3;

export interface LauncherFiles {
  launcher: string;
  /** The configuration the runner is told to use (pytest's `-c`): the base's, or an empty one outside the checkout. */
  inifile: string;
  nonce: string;
}

/** Copies the runner's launcher into `dir` (outside the checkout) and fixes its configuration file. */
export function prepareLauncher(dir: string, runner: Pick<TestRunner, "launcherFile">, baseConfig: string | null): LauncherFiles {
  mkdirSync(dir, { recursive: true });
  const launcher = join(dir, basename(runner.launcherFile));
  copyFileSync(runner.launcherFile, launcher);
  let inifile = baseConfig;
  if (inifile === null) {
    inifile = join(dir, "empty.ini");
    writeFileSync(inifile, "");
  }
  return { launcher, inifile, nonce: randomBytes(16).toString("hex") };
}

/** The python that runs the tests: the environment's venv, else python3 on PATH. */
export function testPython(pathPrefix: readonly string[]): string {
  for (const dir of pathPrefix) if (existsSync(join(dir, "python3"))) return join(dir, "python3");
  return "python3";
}

/** Whether a path shadows one of `modules` (a directory of that name on the way, or a module file of that name), or null. */
export function shadowsModules(path: string, modules: ReadonlySet<string>): boolean {
  const segs = path.split("/");
  const stem = /^([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z0-9_-]+)*\.(py|pyc|pyo|pyd|so)$/.exec(segs[segs.length - 1]!)?.[1];
  return segs.slice(0, -1).some((d) => modules.has(d)) || (stem !== undefined && modules.has(stem));
}
