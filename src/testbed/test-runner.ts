import type { PatchBlock } from "../core/patch-blocks.js";
import type { BedGit } from "./bed-git.js";
import type { JunitCase } from "./junit-xml.js";

/**
 * A test runner the verifier can vouch for (pytest, unittest, a test's fake): everything that knows
 * how one runner starts, configures itself, reports and names its tests. The test-bed, verify,
 * qualify and mine ask the runner a repository names (`environment.test_runner`, default pytest);
 * none of them knows which one it holds. Register a new one in `test-runners.ts`.
 *
 * Test ids are node ids in every runner (`path/test_x.py::Class::test_f[params]`): the dataset
 * format, sessions, canaries and reports read them without asking the runner.
 */
export interface TestRunner {
  /** The name a dataset gives (`environment.test_runner`). */
  readonly name: string;
  /** The test command when neither the task's verifier nor its repository names one. */
  readonly defaultCommand: string;
  /**
   * The dataset's command with every start of the runner replaced by `{launcher}` (our launcher,
   * started by the same python with `-I`); null when it starts the runner in no way recognised here.
   */
  harden(template: string): string | null;
  /** What the verdict says when `harden` gives null. */
  readonly unhardened: string;
  /**
   * Our launcher: a Python file run as `python -I launcher FD NONCE ROOTDIR CONFIG -- ARGS` that
   * loads and runs the tests itself and writes every outcome on fd FD (records of
   * src/testbed/runner-stream.ts, each with NONCE) and a JUnit report where `{junit}` says.
   */
  readonly launcherFile: string;
  /** Variables of every test run: `defaults` the environment's own may replace, `forced` it may not. */
  readonly env: { defaults: Record<string, string>; forced: Record<string, string> };
  /** The file the runner reads its configuration from at the root of the base checkout (its CONFIG), or null. */
  locateConfig(python: string, checkout: string): Promise<string | null>;
  /**
   * After the artifact is applied: the files of other uses whose runner configuration the artifact
   * changed, restored to their base versions (the verdict lists them as dropped).
   */
  restoreConfig(tree: BedGit, kept: readonly PatchBlock[], python: string, scratch: string): Promise<string[]>;
  /** Why a path of the artifact steers this runner (beyond the interpreter's own channels), or null; `command` is the test command. */
  channel(path: string, command: string): string | null;
  /** Requested ids the runner refused as not existing, from its printed output (the run is repeated without them). */
  notFoundTargets(output: string): string[];
  /** The runner's own words that it stopped at collection (the other files did not run), or null. */
  collectionInterruption(output: string): string | null;
  /** The node id of a JUnit case, and the file or directory a collection-error case covers (null: not one). */
  caseNodeId(c: Pick<JunitCase, "classname" | "name" | "file">, checkout: string): string;
  collectionErrorScope(c: Pick<JunitCase, "classname" | "name">, checkout: string): string | null;
  /** The runner's mapping of a node id to its JUnit (classname, name) key. */
  mangle(nodeId: string): string;
  /** Test modules by the runner's default naming: the files that get canaries. */
  readonly testModule: RegExp;
  /** How a constant canary is planted so that the runner runs it: a module-level function, or a TestCase method. */
  readonly constantCanary: "function" | "method";
  /** The package a pinned set-up must pin for this runner (`pytest`), or null when it comes with Python. */
  readonly package: string | null;
  /** What `doctor` runs to see the runner is there (its output names a version), what it enables, and the fix. */
  readonly probe: { program: string; args: string[]; enables: string; fix: string };
}
