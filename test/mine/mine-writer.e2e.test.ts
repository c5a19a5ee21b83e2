import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { cliAsync } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const root = tempDir("switch-swe-mine-writer-");
const env = { SWITCH_SWE_CACHE: join(root, "cache"), OPENAI_API_KEY: "sk-test" };
const { repo, init, commit } = gitHistory(root, "labels");
const out = join(root, "mined");
const upper = "Please make labels come out in capital letters, whatever case the name was given in.";
const unit = "Labels should also be able to carry a unit after the name, in capitals as well.";
let server: MockModelServer;

/** The smallest history with one candidate: a chain of two commits on one module, each with its test. */
beforeAll(async () => {
  init();
  commit("Initial layout", {
    "labels/__init__.py": "",
    "labels/label.py": "def label(name):\n    return name\n",
    "tests/test_base.py": "def test_base():\n    assert True\n",
  });
  commit("Upper-case labels", {
    "labels/label.py": "def label(name):\n    return name.upper()\n",
    "tests/test_label.py": "from labels.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n",
  });
  commit("Labels can carry a unit", {
    "labels/label.py": "def label(name, unit_suffix=''):\n    return (name + unit_suffix).upper()\n",
    "tests/test_label.py":
      "from labels.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n\n\ndef test_unit():\n    assert label('a', 'm') == 'AM'\n",
  });
  server = await startMockModel({
    script: parseScript([
      { requests: "any", match: "Step 1 of 2", text: JSON.stringify({ request: upper }) },
      { requests: "any", match: "Step 2 of 2", text: JSON.stringify({ request: "Add a unit_suffix parameter to label." }) },
      { requests: "any", match: "Step 2 of 2", text: JSON.stringify({ request: unit }) },
    ]),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(missingTool)("tasks mine --writer-model", () => {
  it(
    "mines the chain, then writes its request texts (a leaking rewrite asked again) into the tasks and the manifest",
    { timeout: 600_000 },
    async () => {
      const r = await cliAsync(
        ["tasks", "mine", repo, "--out", out, "--runs", "1", "--writer-model", "local:writer", "--writer-base-url", server.baseURL],
        { env },
      );
      expect(r.stdout).toContain("1 candidate(s): 1 mined, 0 rejected");
      expect(r.stdout).toContain(
        `${out}: 2 request text(s) written, 0 rewrite(s) refused (derived text kept, reason recorded), 0 left as they were\n`,
      );
      expect(r.code).toBe(0);
      expect(server.unusedTurns()).toEqual([]);
      const [id] = readdirSync(join(out, "tasks"));
      const task = JSON.parse(readFileSync(join(out, "tasks", id!, "task.json"), "utf8"));
      expect(task.requests.map((q: { text: string }) => q.text)).toEqual([upper, unit]);
      expect(task.requests[1].writer).toMatchObject({ status: "written", model: "local:writer", attempts: 2 });
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
      expect(manifest.tasks[0].stages.map((s: { text: string }) => s.text)).toEqual([upper, unit]);
      expect((await cliAsync(["tasks", "validate", out], { env })).code).toBe(0);
    },
  );
});
