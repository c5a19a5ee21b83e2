import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addQualifyCommand } from "../../src/cli/commands/tasks-qualify.js";
import { classifyTest } from "../../src/qualify/classify.js";
import { qualifyDataset } from "../../src/qualify/qualify-dataset.js";
import { calcF2P, calcP2P, calcRepo, calcTestsPatchFiles, diffAgainst, tempDir, writeCalcDataset, writeFiles } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

const cache = tempDir("switch-swe-cache-");
const scratch = tempDir();
beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
});
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("classifyTest", () => {
  it("F2P, P2P, unstable and other", () => {
    expect(classifyTest(["failed", "error"], ["passed", "passed"])).toBe("F2P");
    expect(classifyTest(["absent", "absent"], ["passed", "passed"])).toBe("F2P");
    expect(classifyTest(["passed", "passed"], ["passed", "passed"])).toBe("P2P");
    expect(classifyTest(["passed", "failed"], ["passed", "passed"])).toBe("unstable");
    expect(classifyTest(["failed", "failed"], ["passed", "failed"])).toBe("unstable");
    expect(classifyTest(["failed"], ["failed"])).toBe("other");
    expect(classifyTest(["skipped"], ["passed"])).toBe("other");
    expect(classifyTest(["passed"], ["skipped"])).toBe("other");
  });
});

// The test-run sandbox test needs bwrap: skipped with the reason where bwrap is missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");
describe("qualifyDataset", () => {
  it("qualifies a correctly declared task and finds exactly its F2P tests", async () => {
    const root = writeCalcDataset(join(scratch, "good"));
    const { reports } = await qualifyDataset(root, { runs: 2 });
    const r = reports[0]!;
    expect(r.problems).toEqual([]);
    expect(r.differences).toEqual([]);
    expect(r.qualified).toBe(true);
    expect([...r.observed.fail_to_pass].sort()).toEqual([...calcF2P].sort());
    expect(r.observed.pass_to_pass).toBe(1);
    expect(r.runs.map((x) => `${x.state}${x.run}`)).toEqual(["without1", "with1", "without2", "with2"]);
    expect(r.runs.every((x) => x.result_source === "junit")).toBe(true);
  });

  it("reports every difference from the declared lists, and --write fixes them", async () => {
    const root = writeCalcDataset(join(scratch, "misdeclared"), {
      tasks: [
        {
          id: "fix-add",
          f2p: ["tests/test_ops.py::test_add", "tests/test_ops.py::test_mul"],
          p2p: ["tests/test_ops.py::TestAdd::test_neg"],
        },
      ],
    });
    const { reports } = await qualifyDataset(root, { runs: 1 });
    const r = reports[0]!;
    expect(r.qualified).toBe(false);
    expect(r.problems).toEqual([
      "declared F2P tests/test_ops.py::test_mul already passes without the reference (it is P2P)",
      "declared P2P tests/test_ops.py::TestAdd::test_neg fails without the reference (it is F2P)",
    ]);
    expect(r.differences).toContain("tests/test_ops.py::test_add_many[1-2] is F2P but not declared");

    const written = await qualifyDataset(root, { runs: 1, write: true });
    expect(written.reports[0]!.qualified).toBe(true);
    const task = JSON.parse(readFileSync(join(root, "tasks", "fix-add", "task.json"), "utf8"));
    expect(task.verifier.fail_to_pass).toEqual([
      "tests/test_ops.py::test_add",
      "tests/test_ops.py::TestAdd::test_neg",
      "tests/test_ops.py::test_add_many[1-2]",
      "tests/test_ops.py::test_add_many[3-4]",
    ]);
    expect(task.verifier.pass_to_pass).toEqual(calcP2P);
    expect(task.requests[0].text).toBe("Make add() add.");
    const again = await qualifyDataset(root, { runs: 1 });
    expect(again.reports[0]!.qualified).toBe(true);
    expect(again.reports[0]!.differences).toEqual([]);
  });

  it("rejects a task whose declared test is unstable, and one without any F2P test", async () => {
    // Unstable without state kept between runs (each runs sandboxed in a checkout of its own): it fails
    // in the second run of each state, whose scratch (its TMPDIR) lies under `<state>-2` (the checkout
    // itself is seen at /testbed in every sandboxed run, as the caller's path without bubblewrap).
    const flaky = ["import os", "", "", "def test_flaky():", "    assert not os.environ['TMPDIR'].endswith('-2/tmp')", ""].join("\n");
    const testsPatch = diffAgainst(calcRepo(), (d) =>
      writeFiles(d, {
        "tests/test_flaky.py": flaky,
        "tests/test_ops.py":
          readFileSync(join(scratch, "good", "repos", "calc", "tests", "test_ops.py"), "utf8") +
          "\n\ndef test_add():\n    from calc.ops import add\n    assert add(1, 1) == 2\n",
      }),
    );
    const root = writeCalcDataset(join(scratch, "flaky"), {
      tasks: [
        { id: "flaky", f2p: ["tests/test_ops.py::test_add"], p2p: ["tests/test_flaky.py::test_flaky"], testsPatch },
        { id: "noop", f2p: ["tests/test_ops.py::test_add"], p2p: [], stage: "" },
      ],
    });
    const { reports } = await qualifyDataset(root, { runs: 2, concurrency: 1 });
    const flakyReport = reports.find((r) => r.task === "flaky")!;
    expect(flakyReport.qualified).toBe(false);
    expect(flakyReport.problems.join("\n")).toContain("declared P2P tests/test_flaky.py::test_flaky is unstable");
    expect(flakyReport.observed.unstable).toEqual(["tests/test_flaky.py::test_flaky"]);
    const noop = reports.find((r) => r.task === "noop")!;
    expect(noop.qualified).toBe(false);
    expect(noop.problems[0]).toContain("no fail-to-pass test");
    expect(noop.problems.join("\n")).toContain("declared F2P tests/test_ops.py::test_add does not pass with the reference");
    expect(noop.proposed).toBeNull();
  });

  it.skipIf(missingTool)(
    "runs the dataset's tests in the test-run sandbox: a hostile test file writes neither the caller's /tmp nor the caller's files, and still runs",
    async () => {
      const outside = [join(scratch, "hostile-wrote-here"), join("/tmp", `switch-swe-hostile-${process.pid}`)];
      const hostile = [
        "import os",
        "",
        "",
        "def test_hostile():",
        `    for path in ${JSON.stringify(outside)}:`,
        "        try:",
        "            os.makedirs(os.path.dirname(path), exist_ok=True)",
        "            open(path, 'w').write('planted')",
        "        except OSError:",
        "            pass",
        "",
      ].join("\n");
      const testsPatch = diffAgainst(calcRepo(), (d) => writeFiles(d, { ...calcTestsPatchFiles, "tests/test_hostile.py": hostile }));
      const root = writeCalcDataset(join(scratch, "hostile"), {
        tasks: [{ id: "hostile", p2p: [...calcP2P, "tests/test_hostile.py::test_hostile"], testsPatch }],
      });
      const { reports } = await qualifyDataset(root, { runs: 1 });
      expect(reports[0]!.problems).toEqual([]);
      expect(reports[0]!.qualified).toBe(true);
      for (const path of outside) expect(existsSync(path), path).toBe(false);
    },
  );

  it("the tasks qualify command prints a line per task and exits 1 when one does not qualify", async () => {
    const program = new Command().exitOverride();
    addQualifyCommand(program.command("tasks"));
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    try {
      await program.parseAsync(["node", "switch-swe", "tasks", "qualify", join(scratch, "flaky"), "--task", "noop", "--runs", "1"]);
    } finally {
      spy.mockRestore();
    }
    expect(out.join("")).toMatch(/noop\s+NOT QUALIFIED/);
    expect(out.join("")).toContain("0 of 1 task(s) qualify");
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
    await expect(qualifyDataset(join(scratch, "flaky"), { tasks: ["nope"] })).rejects.toThrow(/tasks: nope: no such task/);
  });
});
