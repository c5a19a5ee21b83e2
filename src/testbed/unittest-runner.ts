import { fileURLToPath } from "node:url";
import { caseNodeId, collectionErrorScope, mangleNodeId } from "./pytest-ids.js";
import { shadowsModules } from "./launcher-files.js";
import type { TestRunner } from "./test-runner.js";

/**
 * Python's unittest family, run by our launcher (src/testbed/unittest-launcher.py): `python -m
 * unittest ...`, and a project's own script that wraps unittest (`python tests/runtests.py ...`, as
 * Django's), which the launcher runs in its own process after hooking unittest's result class. The
 * launcher reports in pytest's JUnit shape (classname = dotted module and class), so ids map as
 * pytest's do.
 */

const pythonMinusMUnittest = /(^|[\s;&|()])((?:[^\s;&|()'"]*\/)?python[0-9.]*)\s+-m\s+unittest(?=\s|$)/g;
/** `python path/to/script.py`: a relative script of the checkout (the project's runner). */
const pythonScript = /(^|[\s;&|()])((?:[^\s;&|()'"]*\/)?python[0-9.]*)\s+((?![-/])[^\s;&|()'"$`]+\.py)(?=\s|$)/g;

/** The project's runner scripts a command starts (`tests/runtests.py`). */
function runnerScripts(command: string): string[] {
  return [...command.matchAll(pythonScript)].map((m) => m[3]!.replace(/^\.\//, ""));
}

function hardenUnittest(template: string): string | null {
  let hits = 0;
  let out = template.replace(pythonMinusMUnittest, (_m, pre: string, py: string) => {
    hits++;
    return `${pre}${py} -I {launcher} --junitxml={junit}`;
  });
  out = out.replace(pythonScript, (_m, pre: string, py: string, script: string) => {
    hits++;
    return `${pre}${py} -I {launcher} --junitxml={junit} --script ${script}`;
  });
  return hits > 0 ? out : null;
}

const unittestModules = new Set(["unittest"]);

export const unittestRunner: TestRunner = {
  name: "unittest",
  defaultCommand: "python3 -m unittest -v {tests}",
  harden: hardenUnittest,
  unhardened:
    "the test command starts unittest neither as `python -m unittest` nor as `python SCRIPT.py`: the verifier cannot run it with its own runner",
  launcherFile: fileURLToPath(new URL("./unittest-launcher.py", import.meta.url)),
  env: { defaults: {}, forced: {} },
  // unittest reads no configuration file; the project's runner script is its configuration, sealed as a channel.
  locateConfig: () => Promise.resolve(null),
  restoreConfig: () => Promise.resolve([]),
  channel(path, command) {
    if (runnerScripts(command).includes(path)) return "is the project's test runner script";
    return shadowsModules(path, unittestModules) ? "shadows the runner's modules" : null;
  },
  // Our launcher loads named tests itself: an id that does not exist is simply not reported (missing).
  notFoundTargets: () => [],
  collectionInterruption: () => null,
  caseNodeId,
  collectionErrorScope,
  mangle: mangleNodeId,
  testModule: /(^|\/)test[^/]*\.py$/,
  constantCanary: "method",
  package: null,
  probe: {
    program: "python3",
    args: ["-c", "import sys, unittest; print(sys.version.split()[0])"],
    enables: "the tests of repositories whose test runner is unittest (verify, qualify, mine)",
    fix: "apt-get install python3",
  },
};
