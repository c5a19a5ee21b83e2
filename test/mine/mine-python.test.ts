import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";

/** `tasks mine --python`: the environment it records is pinned to a Python minor version, a setting a resumed run must keep. */
const root = tempDir("switch-swe-mine-python-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const { repo, init, commit } = gitHistory(root, "tiny");
init();
commit("Initial", { "tiny/__init__.py": "", "tests/test_tiny.py": "def test_tiny():\n    pass\n" });
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const out = join(root, "out");
const setup = `python3 -m venv "$SWITCH_SWE_ENV/venv"`;

describe("tasks mine --python", () => {
  it("records environment.python in the manifest, the dataset and the run's settings", () => {
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--setup", setup, "--python", "3.11"], { env });
    // A one-commit history has no candidate: nothing mined (exit 1), but the run's files are written.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("1 commits, 0 candidate(s)");
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).repos.tiny.environment.python).toBe("3.11");
    expect(JSON.parse(readFileSync(join(out, "dataset.json"), "utf8")).repos.tiny.environment.python).toBe("3.11");
    expect(JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8")).settings.python).toBe("3.11");
  });

  it("refuses to resume without it, and refuses a version that is no Python minor version (exit 2)", () => {
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--setup", setup], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${join(out, "mine-report.json")}: settings.python: this run used "3.11", not null: resume with the options it was started with, or mine into a new --out\n`,
    );
    const bad = cli(["tasks", "mine", repo, "--out", join(root, "bad"), "--python", "3"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--python must be a Python minor version such as 3.11, got "3"');
  });
});
