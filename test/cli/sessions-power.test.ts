import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

const root = tempDir();
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sessions stats: the smallest gap the pairs can detect, before a run", () => {
  const tasks = layoutTen.tasks.map((t) => ({ ...t, stages: Math.max(2, t.stages) }));
  const ds = writeSyntheticDataset(join(root, "ds"), layoutTen.files, tasks);
  const built = join(root, "s.json");
  const b = cli(["sessions", "build", ds, "--seed", "1", "--out", built], { env });

  it("prints the pairs and the minimum detectable gap at 25%, and warns in one line when it is above 11.5 points", () => {
    expect(b.code, b.stderr).toBe(0);
    const pairs = (JSON.parse(readFileSync(built, "utf8")) as SessionsFile).pairs.length;
    const s = cli(["sessions", "stats", built], { env });
    expect(s.code).toBe(0);
    const last = s.stdout.trimEnd().split("\n").at(-1);
    expect(last).toBe(
      `no gap is detectable with these ${pairs} pairs (exact McNemar, α = 0.05, 80% power, 25.0% discordance assumed): even a gap of 25.0 points, every disagreeing pair on one side, is found less than 80% of the time`,
    );
    expect(s.stderr).toMatch(
      new RegExp(
        `^warning: ${pairs} session pairs detect no gap at all, not the paper's mean gap of 11\\.5 points: a real gap may go unseen \\(about 158 pairs would at 25\\.0% discordance\\)\\n$`,
      ),
    );
    const j = JSON.parse(cli(["sessions", "stats", built, "--json"], { env }).stdout) as { power: unknown };
    expect(j.power).toEqual({ pairs, discordant_pairs: null, discordance: 25, assumed: true, min_detectable_gap: null });
  });

  it("says nothing more when 200 pairs detect a 10.2-point gap", () => {
    const file = JSON.parse(readFileSync(built, "utf8")) as SessionsFile;
    // 200 copies of the built pairs, each focus task renamed so that pair ids stay distinct.
    const copy = (i: number) => {
      const p = file.pairs[i % file.pairs.length]!;
      return JSON.parse(JSON.stringify(p).replaceAll(`"${p.focus}"`, `"p${String(i).padStart(3, "0")}"`)) as SessionsFile["pairs"][number];
    };
    const many = { ...file, pairs: Array.from({ length: 200 }, (_, i) => copy(i)) };
    const path = join(root, "many.json");
    writeFileSync(path, JSON.stringify(many));
    const s = cli(["sessions", "stats", path], { env });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toBe("");
    expect(s.stdout).toContain("\nthe smallest gap these 200 pairs can detect: 10.2 points (exact McNemar");
  });
});
