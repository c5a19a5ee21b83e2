import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dropNotFound } from "../../src/testbed/missing-ids.js";
import { notFoundTargets } from "../../src/testbed/pytest-output.js";
import { pytestRunner } from "../../src/testbed/pytest-runner.js";
import { tempDir } from "../verify/fixture.js";

/**
 * pytest's own words for requested ids it cannot run, read from a real pytest run: an id whose module
 * cannot be imported stops the whole run (exit 4) even with --continue-on-collection-errors, as an id
 * that does not exist does; both must be dropped so that the other requested ids still run.
 */
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "tests"));
writeFileSync(join(dir, "tests", "test_ok.py"), "def test_a():\n    assert True\n");
// As a module whose tests import what a forgotten stage adds.
writeFileSync(
  join(dir, "tests", "test_broken.py"),
  "from os import not_there\n\n\ndef test_b():\n    assert True\n\n\ndef test_c():\n    assert True\n",
);

function pytest(ids: readonly string[]) {
  const r = spawnSync("python3", ["-m", "pytest", "-p", "no:cacheprovider", "-q", ...ids], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PYTEST_ADDOPTS: pytestRunner.env.defaults.PYTEST_ADDOPTS },
  });
  return { code: r.status, output: `${r.stdout}\n${r.stderr}` };
}

describe("ids pytest refuses to run", () => {
  it("an id in a module that cannot be imported is named like a missing one, and dropping both lets the rest run", () => {
    const ids = ["tests/test_broken.py::test_b", "tests/test_ok.py::test_a", "tests/test_broken.py::test_c", "tests/test_ok.py::test_gone"];
    const first = pytest(ids);
    expect(first.code, first.output).toBe(4);
    const targets = notFoundTargets(first.output);
    expect(
      targets.some((t) => t.endsWith("tests/test_broken.py::test_b")),
      first.output,
    ).toBe(true);
    const step = dropNotFound(ids, targets, new Map());
    expect(step.progress).toBe(true);
    expect(step.dropped).toContain("tests/test_broken.py::test_b");
    // Every refused id gone (pytest may name them over more than one run, as the verifier's reruns allow).
    let next = step.next;
    let run = pytest(next);
    for (let i = 0; run.code === 4 && i < 3; i++) {
      next = dropNotFound(next, notFoundTargets(run.output), new Map()).next;
      run = pytest(next);
    }
    expect(next).toEqual(["tests/test_ok.py::test_a"]);
    // The broken module's own error is still reported; the remaining id passes.
    expect(run.output).toMatch(/1 passed/);
  });
});
