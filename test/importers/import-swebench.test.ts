import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { addImportCommand } from "../../src/cli/commands/tasks-import.js";
import { InputError } from "../../src/core/errors.js";
import { loadDataset } from "../../src/dataset/load.js";
import { importSwebench } from "../../src/importers/import-swebench.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../verify/fixture.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const patch = "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n";
const testPatch =
  "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n";

function instance(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    instance_id: id,
    repo: "acme/widgets",
    base_commit: "0123456789abcdef0123456789abcdef01234567",
    patch,
    test_patch: testPatch,
    problem_statement: `Fix ${id}.`,
    FAIL_TO_PASS: ["tests/test_x.py::test_a"],
    PASS_TO_PASS: ["tests/test_x.py::test_b"],
    version: "1.0",
    ...extra,
  };
}

describe("importSwebench", () => {
  it("imports good instances, refuses malformed ones with one line each", () => {
    const file = join(dir, "instances.jsonl");
    const { base_commit: _drop, ...noBase } = instance("acme__widgets-4");
    const lines = [
      JSON.stringify(instance("acme__widgets-1")),
      JSON.stringify(instance("acme__widgets-2", { FAIL_TO_PASS: '["tests/test_x.py::test_c"]', PASS_TO_PASS: "[]" })),
      "{not json",
      JSON.stringify(noBase),
      JSON.stringify(instance("acme__widgets-1")),
      JSON.stringify(instance("other__lib-9", { repo: "other/lib", FAIL_TO_PASS: [] })),
      JSON.stringify(instance("acme__widgets-5", { patch: "not a diff" })),
      "",
    ];
    writeFileSync(file, lines.join("\n"));
    const map = join(dir, "map.json");
    writeFileSync(map, JSON.stringify({ "acme/widgets": "python -m pytest -rA --junitxml={junit} {tests}" }));
    const out = join(dir, "ds");
    const r = importSwebench({ instancesFile: file, outDir: out, testCommandMapFile: map });
    expect(r.imported).toEqual(["acme__widgets-1", "acme__widgets-2"]);
    const lines2 = r.refused.map((p) => `${p.file}: ${p.path}: ${p.message}`);
    expect(lines2).toEqual([
      `${file}: [2]: not valid JSON (${lines2[0]!.split("not valid JSON (")[1]!.slice(0, -1)})`,
      `${file}: [3].base_commit: required`,
      `${file}: [4].instance_id: acme__widgets-1 appears twice; the first one was imported`,
      `${file}: [5].FAIL_TO_PASS: no fail-to-pass test`,
      `${file}: [6].patch: does not parse: no file headers found (expected a unified diff with 'diff --git' or '---/+++' lines)`,
    ]);
    const ds = loadDataset(out);
    expect(ds.manifest.repos["acme__widgets"]).toEqual({
      git: "https://github.com/acme/widgets.git",
      environment: { test_command: "python -m pytest -rA --junitxml={junit} {tests}" },
    });
    const t2 = ds.tasks.find((t) => t.id === "acme__widgets-2")!;
    expect(t2.verifier.fail_to_pass).toEqual(["tests/test_x.py::test_c"]);
    expect(t2.verifier.pass_to_pass).toEqual([]);
    expect(t2.base).toBe("0123456789abcdef0123456789abcdef01234567");
    expect(t2.requests).toEqual([{ text: "Fix acme__widgets-2.", provenance: "SWE-bench acme__widgets-2 problem_statement" }]);
    expect(t2.stagePatches).toEqual([patch]);
    expect(t2.testsPatch).toBe(testPatch);

    // Importing again refuses existing tasks instead of overwriting them.
    expect(() => importSwebench({ instancesFile: file, outDir: out })).toThrow(InputError);
  });

  it("adds follow-up stages that carry their own reference diffs; refuses bare-text follow-ups", () => {
    const file = join(dir, "instances.json");
    writeFileSync(file, JSON.stringify([instance("acme__widgets-7"), instance("acme__widgets-8")]));
    const followUps = join(dir, "followups.json");
    const patch2 = "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a = 2\n+a = 3\n";
    writeFileSync(
      followUps,
      JSON.stringify({
        "acme__widgets-7": [
          {
            text: "Now make it 3.",
            patch: patch2,
            tests: ["tests/test_x.py::test_three"],
            test_patch: testPatch
              .replace(/y = 2/, "z = 3")
              .replace(" x = 1\n", " x = 1\n y = 2\n")
              .replace("@@ -1 +1,2 @@", "@@ -1,2 +1,3 @@"),
          },
        ],
        "acme__widgets-8": ["Also do this."],
        "acme__widgets-99": [{ text: "orphan", patch: patch2 }],
      }),
    );
    const out = join(dir, "staged");
    const r = importSwebench({ instancesFile: file, outDir: out, requestsFile: followUps });
    expect(r.imported).toEqual(["acme__widgets-7"]);
    const msgs = r.refused.map((p) => `${p.path}: ${p.message}`);
    expect(msgs[0]).toMatch(/^acme__widgets-8\[0\]: a follow-up needs its own reference diff/);
    expect(msgs).toContain("[1].instance_id: acme__widgets-8 has malformed follow-ups in " + followUps + " (see above); not imported");
    expect(msgs).toContain("acme__widgets-99: no instance with this id in the instances file");
    const t = loadDataset(out).tasks[0]!;
    expect(t.requests.map((q) => q.text)).toEqual(["Fix acme__widgets-7.", "Now make it 3."]);
    expect(t.requests[0]!.tests).toEqual(["tests/test_x.py::test_a"]);
    expect(t.requests[1]!.tests).toEqual(["tests/test_x.py::test_three"]);
    expect(t.verifier.fail_to_pass).toEqual(["tests/test_x.py::test_a", "tests/test_x.py::test_three"]);
    expect(t.stagePatches).toEqual([patch, patch2]);
    expect(t.testsPatch.startsWith(testPatch)).toBe(true);
  });

  it("the command exits 1 with the refused lines on stderr, and 2 when nothing is importable", async () => {
    const file = join(dir, "mixed.jsonl");
    writeFileSync(file, [JSON.stringify(instance("acme__widgets-20")), JSON.stringify({ instance_id: "x" })].join("\n"));
    const run = async (args: string[]) => {
      const program = new Command().exitOverride();
      addImportCommand(program.command("tasks"));
      const err: string[] = [];
      const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true));
      const spyOut = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        await program.parseAsync(["node", "switch-swe", "tasks", "import-swebench", ...args]);
        return { err: err.join(""), thrown: null as unknown };
      } catch (e) {
        return { err: err.join(""), thrown: e };
      } finally {
        spyErr.mockRestore();
        spyOut.mockRestore();
      }
    };
    const out = join(dir, "cli");
    const a = await run([file, "--out", out]);
    expect(a.thrown).toBeNull();
    expect(a.err).toContain(`${file}: [1].repo: required`);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, JSON.stringify({ instance_id: "y" }));
    const b = await run([bad, "--out", out]);
    expect(b.thrown).toBeInstanceOf(InputError);
    expect((b.thrown as InputError).message).toContain(`${bad}: [0].base_commit: required`);
    expect(readFileSync(join(out, "dataset.json"), "utf8")).toContain("acme__widgets");
  });

  it("the built CLI exits 1 when some instances are refused and 2 when none is importable", () => {
    const mixed = join(dir, "cli-mixed.jsonl");
    writeFileSync(mixed, [JSON.stringify(instance("acme__widgets-30")), JSON.stringify({ instance_id: "z", repo: "a/b" })].join("\n"));
    const out = join(dir, "cli-built");
    const a = cli(["tasks", "import-swebench", mixed, "--out", out]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`${mixed}: [1].base_commit: required`);
    expect(a.stdout).toContain("imported 1 task(s)");
    const none = cli(["tasks", "import-swebench", mixed, "--out", out]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("[0].instance_id: task acme__widgets-30 already exists");
  });
});
