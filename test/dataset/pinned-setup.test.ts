import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { pinMismatches, setupPins, unpinnedEnvironment } from "../../src/dataset/pinned-setup.js";
import { testRunnerPackage } from "../../src/testbed/test-runners.js";
import { cli } from "../helpers/cli.js";
import { tempDir, writeCalcDataset } from "../verify/fixture.js";

const venv = `python3 -m venv "$SWITCH_SWE_ENV/venv"`;
const pip = `"$SWITCH_SWE_ENV/venv/bin/python" -m pip install --quiet`;

describe("the pinned-environment rule", () => {
  it("reads NAME==VERSION pins from every pip install, and names what is not pinned", () => {
    const s = setupPins([
      venv,
      `${pip} pytest==8.4.2 'Typing_Extensions[x]==4.16.0' six && pip3 install -r req.txt -e . --index-url http://x/ attrs==26.1.0; pip install "pytz>=2020"`,
    ]);
    expect([...s.pins]).toEqual([
      ["pytest", "8.4.2"],
      ["typing-extensions", "4.16.0"],
      ["attrs", "26.1.0"],
    ]);
    expect(s.venv).toBe(true);
    expect(s.unpinned).toEqual([
      "six is not pinned (NAME==VERSION)",
      "-r req.txt: a requirements file hides its versions (list each as NAME==VERSION)",
      "-e .: an editable install is no pinned version",
      "pytz>=2020 is not pinned (NAME==VERSION)",
    ]);
  });

  it("asks for a set-up, a declared Python minor version, a venv and pytest pinned, for the repository and each variant", () => {
    expect(unpinnedEnvironment({ test_command: "python3 -m pytest {tests}" }, "e", testRunnerPackage)).toEqual([
      ["e", "no set-up: tests run on the host's python3 and pytest, whose versions nothing declares"],
    ]);
    expect(unpinnedEnvironment({ python: "3.11", setup: [venv, `${pip} pytest==8.4.2`] }, "e", testRunnerPackage)).toEqual([]);
    expect(
      unpinnedEnvironment({ setup: [`pip install six==1.17.0`], variants: { "1.0": { python: "3.11" } } }, "e", testRunnerPackage),
    ).toEqual([
      ["e", 'the Python minor version is not declared (environment.python, e.g. "3.11")'],
      ["e", "the set-up creates no venv ($SWITCH_SWE_ENV/venv), so tests would run the host's python"],
      ["e", "pytest is not pinned (pytest==VERSION in a pip install)"],
      ["e.variants.1.0", "the set-up creates no venv ($SWITCH_SWE_ENV/venv), so tests would run the host's python"],
      ["e.variants.1.0", "pytest is not pinned (pytest==VERSION in a pip install)"],
    ]);
  });

  it("asks a unittest repository for no pytest pin (unittest comes with Python), a variant for its own runner's", () => {
    const unittest = { test_runner: "unittest", python: "3.11", setup: [venv, `${pip} pyyaml==6.0.3`] };
    expect(unpinnedEnvironment(unittest, "e", testRunnerPackage)).toEqual([]);
    expect(unpinnedEnvironment({ test_runner: "unittest" }, "e", testRunnerPackage)).toEqual([
      ["e", "no set-up: tests run on the host's python3 and its test runner, whose versions nothing declares"],
    ]);
    expect(unpinnedEnvironment({ ...unittest, variants: { "2.0": { test_runner: "pytest" } } }, "e", testRunnerPackage)).toEqual([
      ["e.variants.2.0", "pytest is not pinned (pytest==VERSION in a pip install)"],
    ]);
  });

  it("compares what a set-up installed with its pins", () => {
    const setup = [venv, `${pip} pytest==8.4.2 six==1.17.0`];
    expect(pinMismatches("3.11", setup, { python: "3.11.7", packages: ["pytest==8.4.2", "six==1.17.0"] })).toEqual([]);
    expect(pinMismatches("3.12", setup, { python: "3.11.7", packages: ["pytest==8.3.0", "Pluggy==1.6.0"] })).toEqual([
      "python 3.11.7 (3.12 declared)",
      "pytest 8.3.0 installed (8.4.2 pinned)",
      "six==1.17.0 not installed",
      "installed but not pinned: pluggy==1.6.0",
    ]);
  });
});

describe("datasets check", () => {
  const root = tempDir("switch-swe-check-");
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const real = (name: string) => join(packageRoot, "datasets", "real", name, "manifest.json");

  it("passes a shipped, pinned manifest, and reports one whose set-up is taken away (exit 1)", () => {
    const ok = cli(["datasets", "check", real("ipython")]);
    expect(ok.stdout).toBe("1 of 1 manifest(s) pass\n");
    expect(ok.code).toBe(0);
    const m = JSON.parse(readFileSync(real("sqlparse"), "utf8"));
    delete m.repos.sqlparse.environment.setup;
    delete m.repos.sqlparse.environment.python;
    const unpinned = join(root, "sqlparse.json");
    writeFileSync(unpinned, JSON.stringify(m));
    const bad = cli(["datasets", "check", unpinned, real("ipython")]);
    expect(bad.code).toBe(1);
    expect(bad.stdout.split("\n")[0]).toBe(
      `${unpinned}: repos.sqlparse.environment: not pinned: no set-up: tests run on the host's python3 and pytest, whose versions nothing declares`,
    );
    expect(bad.stdout).toContain("1 of 2 manifest(s) pass");
  });

  it("a missing manifest is bad input (exit 2)", () => {
    const r = cli(["datasets", "check", join(root, "none.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${join(root, "none.json")}: file not found\n`);
  });
});

describe("tasks validate --pinned", () => {
  const root = tempDir("switch-swe-validate-pinned-");
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("adds the pinned rule to a dataset's checks (exit 1), and says nothing of it without the flag", () => {
    const dir = writeCalcDataset(join(root, "calc"));
    const env = { SWITCH_SWE_CACHE: join(root, "cache") };
    expect(cli(["tasks", "validate", dir], { env }).code).toBe(0);
    const r = cli(["tasks", "validate", dir, "--pinned"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toBe(
      `${join(dir, "dataset.json")}: repos.calc.environment: not pinned: no set-up: tests run on the host's python3 and pytest, whose versions nothing declares`,
    );
  });
});
