import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../core/process.js";
import { pathMatcher } from "../core/path-globs.js";
import { caseNodeId, collectionErrorScope, mangleNodeId } from "./pytest-ids.js";
import { collectionInterruption, notFoundTargets } from "./pytest-output.js";
import { restorePytestConfig } from "./pytest-config.js";
import type { TestRunner } from "./test-runner.js";
import { shadowsModules } from "./launcher-files.js";

/**
 * How the verifier runs pytest so that nothing in the checkout configures or replaces the runner:
 * the dataset's test command is rewritten to start our launcher (`python -I`, runner imported before
 * the checkout is on sys.path, rootdir and inifile fixed, our reporter plugin streaming outcomes on
 * fd 3). The helper scripts are Python files next to this module (copied into dist by the build).
 */

const here = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const launcherFile = here("pytest-launcher.py");
const configHelperFile = here("pytest-config.py");

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

async function configHelper(python: string, args: readonly string[]): Promise<unknown> {
  const r = await runProcess(python, ["-I", configHelperFile, ...args], {
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  if (r.code !== 0)
    throw new Error(`${python} ${basename(configHelperFile)} ${args[0]}: exit ${r.code ?? r.signal}: ${r.stderr.trim().slice(-500)}`);
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

/** Files pytest reads as configuration or hooks, at any depth, whatever the repository says. */
const pytestConfigGlobs = ["**/conftest.py", "**/pytest.ini", "**/.pytest.ini", "**/pytest.toml", "**/.pytest.toml", "**/tox.ini"];
const isPytestConfig = pathMatcher(pytestConfigGlobs);
/** Module names of pytest and what it imports; a file or directory of that name could shadow it. */
const pytestModules = new Set([
  "pytest",
  "_pytest",
  "pluggy",
  "iniconfig",
  "py",
  "packaging",
  "exceptiongroup",
  "tomli",
  "pygments",
  "colorama",
]);

/** pytest, run by our launcher (src/testbed/pytest-launcher.py): the default runner. */
export const pytestRunner: TestRunner = {
  name: "pytest",
  defaultCommand: "python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}",
  harden: hardenTestCommand,
  unhardened:
    "the test command starts pytest neither as `python -m pytest` nor as `pytest`: the verifier cannot run it with its own runner",
  launcherFile,
  // One file that cannot be imported must not stop the other files from running; plugins a
  // repository needs are named with -p in its test command.
  env: { defaults: { PYTEST_ADDOPTS: "--continue-on-collection-errors" }, forced: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } },
  locateConfig: locateInifile,
  restoreConfig: (tree, kept, python, scratch) => restorePytestConfig(tree, kept, python, scratch, pytestSections),
  channel(path) {
    if (isPytestConfig(path)) return "configures or hooks the runner";
    return shadowsModules(path, pytestModules) ? "shadows the runner's modules" : null;
  },
  notFoundTargets,
  collectionInterruption,
  caseNodeId,
  collectionErrorScope,
  mangle: mangleNodeId,
  testModule: /(^|\/)(test_[^/]*|[^/]*_test)\.py$/,
  constantCanary: "function",
  package: "pytest",
  probe: {
    program: "python3",
    args: ["-m", "pytest", "--version"],
    enables: "the tasks' tests (verify, qualify, mine, demo)",
    fix: "apt-get install python3-pytest (or: python3 -m pip install pytest)",
  },
};
