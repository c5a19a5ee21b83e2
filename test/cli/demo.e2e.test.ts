import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atifTrajectorySchema } from "../../src/formats/atif.js";
import { readTrajectory } from "../../src/formats/trajectory-file.js";
import { cli } from "../helpers/cli.js";
import { tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";
import { pathWithout } from "../helpers/tools.js";

interface Group {
  n: number;
  uninterrupted: number;
  switched: number;
  gap: number;
  ci95: [number, number];
}

interface SessionEntry {
  id: string;
  status: "resolved" | "unresolved";
  signatures: { lost_requirement: boolean | null };
}

/** True when the oracle dropped the focus task's earlier stages on some focus request (its own tool-call record). */
function startedFocusOver(trajectoryFile: string): boolean {
  const lines = readTrajectory(trajectoryFile);
  const focusRequests = new Set(lines.flatMap((l) => (l.type === "request_start" && l.role === "focus" ? [l.index] : [])));
  return lines.some(
    (l) =>
      l.type === "agent_event" &&
      focusRequests.has(l.index) &&
      l.event.kind === "tool_call" &&
      (l.event.args as { forgot_earlier_stages?: boolean }).forgot_earlier_stages === true,
  );
}

// The README's first command, end to end on the embedded sample: every stage of the pipeline runs for real.
describe("switch-swe demo", () => {
  it("validates, builds, runs the oracle and a forgetting oracle, verifies, and reports a known gap", () => {
    const out = join(tempDir(), "demo");
    const r = cli(["demo", "--out", out, "--concurrency", "2"], { env: { SWITCH_SWE_CACHE: join(tempDir(), "cache") } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toContain("18 tasks, valid");
    expect(r.stdout).toContain("Resolution");
    // Not a terminal: counted progress, for the runs and for their verification.
    expect(r.stderr).toMatch(/^session 36\/36 finished: \S+ \(attempt 1\) · elapsed \d\d:\d\d:\d\d · left /m);
    expect(r.stderr).toMatch(/^verified 36\/36: /m);
    expect(r.stdout.slice(r.stdout.indexOf("\nResult: the resumption gap")).indexOf("Inputs")).toBeGreaterThan(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as {
      configs: Array<{ label: string; groups: Record<string, Group>; sessions: SessionEntry[] }>;
    };
    const [oracle, forget] = report.configs;
    expect(oracle!.label).toBe("oracle");
    // The reference solution resolves every task in both conditions: the harness adds no gap of its own.
    expect(oracle!.groups.overall).toMatchObject({ n: 18, uninterrupted: 100, switched: 100, gap: 0 });
    // Forgetting only on returns: uninterrupted sessions are unaffected, switched ones lose.
    expect(forget!.groups.overall!.uninterrupted).toBe(100);
    expect(forget!.groups.overall!.gap).toBeGreaterThan(30);
    expect(forget!.groups.overall!.ci95[0]).toBeGreaterThan(0);
    expect(existsSync(join(out, "report.html"))).toBe(true);
    // The forgetting oracle's losses are lost requirements by construction: exactly the switched sessions
    // whose trajectory shows it starting the focus task over on a return, and no uninterrupted session.
    const forgetRun = join(out, "runs", "oracle-forget-0.5");
    const lost = forget!.sessions
      .filter((s) => s.signatures.lost_requirement === true)
      .map((s) => s.id)
      .sort();
    const forgotFocus = forget!.sessions
      .filter((s) => startedFocusOver(join(forgetRun, "sessions", s.id, "trajectory.jsonl")))
      .map((s) => s.id)
      .sort();
    expect(forgotFocus.length).toBeGreaterThan(0);
    expect(forgotFocus.every((id) => id.endsWith(".switch"))).toBe(true);
    expect(lost).toEqual(forgotFocus);
    expect(
      forget!.sessions
        .filter((s) => s.status === "unresolved")
        .map((s) => s.id)
        .sort(),
    ).toEqual(forgotFocus);
    for (const run of ["oracle", "oracle-forget-0.5"]) {
      expect(existsSync(join(out, "runs", run, "sessions", "textflow-slug-unicode.switch", "verdict.json"))).toBe(true);
    }
    // Both runs export to ATIF: every session's file validates and its token total is the report's; no two
    // documents share a trajectory_id, and none names this machine's directories.
    const ids = new Set<string>();
    for (const [i, run] of ["oracle", "oracle-forget-0.5"].entries()) {
      const atifDir = join(out, "atif", run);
      const x = cli(["export", "atif", join(out, "runs", run), "--out", atifDir]);
      expect(x.code, x.stderr).toBe(0);
      for (const s of report.configs[i]!.sessions as Array<SessionEntry & { usage: { tokens: number } | null }>) {
        const text = readFileSync(join(atifDir, `${s.id}.json`), "utf8");
        expect(text).not.toContain(out);
        const doc = atifTrajectorySchema.parse(JSON.parse(text));
        ids.add(doc.trajectory_id!);
        expect(doc.final_metrics!.total_prompt_tokens! + doc.final_metrics!.total_completion_tokens!).toBe(s.usage!.tokens);
      }
    }
    expect(ids.size).toBe(72);
  }, 1_800_000);
});

// A fresh machine without bubblewrap: the demo's agents are the harness's own, so it runs them and
// their verification unconfined, says so before it starts, and records it in run.json and the report.
describe("switch-swe demo without bubblewrap", () => {
  it("runs unconfined, says so in one line, and records it in run.json and the report", () => {
    const root = tempDir();
    // Five tasks in five directories: five far pairs, the smallest dataset a demo runs on.
    const dirs = ["a", "b", "c", "d", "e"];
    const dataset = writeSyntheticDataset(
      join(root, "dataset"),
      dirs.map((d) => `pkg/${d}/mod.py`),
      dirs.map((d) => ({ id: `t-${d}`, files: [`pkg/${d}/mod.py`], stages: 2 })),
    );
    const out = join(root, "demo");
    const PATH = pathWithout(["bwrap"], join(root, "bin"));
    const r = cli(["demo", "--dataset", dataset, "--out", out], { env: { PATH, SWITCH_SWE_CACHE: join(root, "cache") } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("confinement:"));
    expect(lines).toEqual([
      expect.stringMatching(
        /^confinement: none \(bwrap is not installed .*\): .* run unconfined; for confinement install bubblewrap \(see switch-swe doctor\)$/,
      ),
    ]);
    // The line comes before the first run starts.
    expect(r.stdout.indexOf("confinement:")).toBeLessThan(r.stdout.indexOf("Resolution"));
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as {
      configs: Array<{ label: string; warnings: string[]; groups: Record<string, Group> }>;
    };
    for (const c of report.configs) {
      expect(
        c.warnings.some((w) => w.startsWith('unconfined run (run.json sandbox.mode "none")')),
        c.label,
      ).toBe(true);
      const config = JSON.parse(readFileSync(join(out, "runs", c.label.replace(/[^A-Za-z0-9.]+/g, "-"), "run.json"), "utf8")) as {
        sandbox: { mode: string; not_enforced: string[] };
      };
      expect(config.sandbox.mode).toBe("none");
      expect(config.sandbox.not_enforced.join(" ")).toContain("bwrap is not installed");
    }
    expect(report.configs[0]!.groups.overall).toMatchObject({ uninterrupted: 100, switched: 100 });
    expect(r.stdout).toContain("unconfined run");
  }, 1_800_000);
});
