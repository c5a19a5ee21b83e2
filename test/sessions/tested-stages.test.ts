import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

const root = tempDir();
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sessions stats --dataset: depth counted honestly", () => {
  it("gives tested focus stages (median and per session) beside all focus stages, and the authored share", () => {
    // Three stages per task; only the first has an F2P test of its own (writeSyntheticDataset maps it there).
    const tasks = layoutTen.tasks.map((t) => ({ ...t, stages: 3 }));
    const ds = writeSyntheticDataset(join(root, "ds"), layoutTen.files, tasks);
    // One focus task's last stage is marked authored: its share shows.
    const out = join(root, "sessions.json");
    expect(cli(["sessions", "build", ds, "--seed", "1", "--out", out], { env }).code).toBe(0);
    const sessions = JSON.parse(readFileSync(out, "utf8"));
    const focus = sessions.pairs[0].focus as string;
    const taskFile = join(ds, "tasks", focus, "task.json");
    const task = JSON.parse(readFileSync(taskFile, "utf8"));
    task.requests[2].provenance = "benchmark-authored";
    task.requests[2].tests = [task.verifier.fail_to_pass[0]];
    task.requests[0].tests = [];
    writeFileSync(taskFile, JSON.stringify(task));

    const r = cli(["sessions", "stats", out, "--dataset", ds, "--json"], { env });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    const n = sessions.pairs.length as number;
    expect(Object.keys(j.tested_focus_stages.per_session)).toHaveLength(2 * n);
    expect(Object.values(j.tested_focus_stages.per_session)).toEqual(Array(2 * n).fill(1));
    expect(j.tested_focus_stages.median).toBe(1);
    expect(j.summary.base.overall.median_focus_stages).toBe(3);
    expect(j.authored_stage_share).toBe(Math.round((2 / (6 * n)) * 1000) / 1000);

    const text = cli(["sessions", "stats", out, "--dataset", ds], { env });
    expect(text.stdout).toContain(
      `tested focus stages (an F2P test of their own): median 1 of 3 focus stages; authored stages ${((2 / (6 * n)) * 100).toFixed(1)}% of focus stages`,
    );
    expect(cli(["sessions", "stats", out, "--json"], { env }).stdout).not.toContain("tested_focus_stages");
  });
});
