import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../core/process.js";

/**
 * How the verifier runs pytest so that nothing in the checkout configures or replaces the runner:
 * the dataset's test command is rewritten to start our launcher (`python -I`, runner imported before
 * the checkout is on sys.path, rootdir and inifile fixed, our reporter plugin streaming outcomes on
 * fd 3). The helper scripts are Python files next to this module (copied into dist by the build).
 */

const here = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
export const launcherFile = here("pytest-launcher.py");
const configHelperFile = here("pytest-config.py");

/** The fd on which the launcher writes its outcome records. */
export const channelFd = 3;

const pythonMinusMPytest = /(^|[\s;&|()])((?:[^\s;&|()'"]*\/)?python[0-9.]*)\s+-m\s+pytest(?=\s|$)/g;
const barePytest = /(^|[\s;&|()])((?:[^\s;&|()'"]*\/)?(?:pytest|py\.test))(?=\s|$)/g;

/**
 * Rewrites `python -m pytest ...` and `pytest ...` in a test command to `{launcher}` invocations.
 * Returns null when the command starts pytest in neither way (the verifier cannot vouch for it).
 */
export function hardenTestCommand(template: string): string | null {
  let hits = 0;
  let out = template.replace(pythonMinusMPytest, (_m, pre: string, py: string) => {
    hits++;
    return `${pre}${py} -I {launcher}`;
  });
  out = out.replace(barePytest, (_m, pre: string) => {
    hits++;
    return `${pre}python3 -I {launcher}`;
  });
  return hits > 0 ? out : null;
}

export interface LauncherFiles {
  launcher: string;
  /** The inifile pytest is told to use (`-c`): the base's, or an empty one outside the checkout. */
  inifile: string;
  nonce: string;
}

/** Copies the launcher into `dir` (outside the checkout) and fixes the inifile. */
export function prepareLauncher(dir: string, baseInifile: string | null): LauncherFiles {
  mkdirSync(dir, { recursive: true });
  const launcher = join(dir, basename(launcherFile));
  copyFileSync(launcherFile, launcher);
  let inifile = baseInifile;
  if (inifile === null) {
    inifile = join(dir, "empty.ini");
    writeFileSync(inifile, "");
  }
  return { launcher, inifile, nonce: randomBytes(16).toString("hex") };
}

async function configHelper(python: string, args: readonly string[]): Promise<unknown> {
  const r = await runProcess(python, ["-I", configHelperFile, ...args], { timeoutMs: 60_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" } });
  if (r.code !== 0) throw new Error(`${python} ${basename(configHelperFile)} ${args[0]}: exit ${r.code ?? r.signal}: ${r.stderr.trim().slice(-500)}`);
  return JSON.parse(r.stdout) as unknown;
}

/** The file pytest would read as its configuration at the root of `checkout` (before the artifact is applied). */
export async function locateInifile(python: string, checkout: string): Promise<string | null> {
  const out = (await configHelper(python, ["locate", checkout])) as { inifile: string | null };
  return out.inifile;
}

/** pytest's parsed configuration from each file (null: the file gives none), as comparable JSON text. */
export async function pytestSections(python: string, files: readonly string[]): Promise<Map<string, string>> {
  const out = (await configHelper(python, ["sections", ...files])) as Record<string, unknown>;
  return new Map(files.map((f) => [f, JSON.stringify(out[f] ?? null)]));
}

/** The python that runs the tests: the environment's venv, else python3 on PATH. */
export function testPython(pathPrefix: readonly string[]): string {
  for (const dir of pathPrefix) if (existsSync(join(dir, "python3"))) return join(dir, "python3");
  return "python3";
}
