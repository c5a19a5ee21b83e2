import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture } from "../run/fixture.js";

// Needs bwrap for the oracle run: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

interface Row {
  repository: string;
  workspace_lines: boolean;
  runs: number;
  sessions: number;
  requests: number;
  routed_correctly: number;
  routing_accuracy: number;
  deferred: number;
  invariant_violations: number;
  uninterrupted_ratio: number | null;
}

describe.skipIf(missingTool)("switch-swe rcm eval RUN...", () => {
  it("gives one line per repository and variant and a pooled line; one run keeps its report", () => {
    const fx = makeRunFixture(2);
    const a = join(fx.root, "run-a");
    const run = cli(
      ["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--agent", "oracle", "--out", a, "--quiet", "--no-verify"],
      { env: { SWITCH_SWE_CACHE: fx.cache } },
    );
    expect(run.code, run.stderr).toBe(0);
    // The same sessions filed under another repository: a second run without running it again.
    const b = join(fx.root, "run-b");
    cpSync(a, b, { recursive: true });
    const config = JSON.parse(readFileSync(join(b, "run.json"), "utf8")) as { dataset: { name: string } };
    const nameA = config.dataset.name;
    writeFileSync(join(b, "run.json"), JSON.stringify({ ...config, dataset: { ...config.dataset, name: "zz-other" } }));

    const one = cli(["rcm", "eval", a, "--workspace-lines", "hidden", "--format", "json"]);
    expect(one.code, one.stderr).toBe(0);
    const single = JSON.parse(one.stdout) as {
      requests: number;
      variants: Array<{ routed_correctly: number; abstained: number; invariant_violations: number }>;
    };
    expect(single.variants).toHaveLength(1);

    const many = cli(["rcm", "eval", a, b, a, "--format", "json"]);
    expect(many.code, many.stderr).toBe(0);
    const pooled = JSON.parse(many.stdout) as { by_repository: Row[]; pooled: Row[] };
    const hidden = (rows: Row[], repo: string) => rows.find((r) => r.repository === repo && !r.workspace_lines)!;
    expect(pooled.by_repository.map((r) => `${r.repository} ${r.workspace_lines ? "shown" : "hidden"}`)).toEqual([
      `${nameA} shown`,
      `${nameA} hidden`,
      "zz-other shown",
      "zz-other hidden",
    ]);
    const v = single.variants[0]!;
    // Run a given twice is two runs of its repository; the pooled line sums requests over all three.
    expect(hidden(pooled.by_repository, nameA)).toMatchObject({
      runs: 2,
      sessions: 4,
      requests: 2 * single.requests,
      routed_correctly: 2 * v.routed_correctly,
      deferred: 2 * v.abstained,
      invariant_violations: 2 * v.invariant_violations,
    });
    expect(hidden(pooled.by_repository, "zz-other")).toMatchObject({
      runs: 1,
      sessions: 2,
      requests: single.requests,
      routed_correctly: v.routed_correctly,
    });
    expect(hidden(pooled.pooled, "pooled")).toMatchObject({
      runs: 3,
      sessions: 6,
      requests: 3 * single.requests,
      routed_correctly: 3 * v.routed_correctly,
    });
    expect(pooled.pooled.find((r) => r.workspace_lines)!.routing_accuracy).toBe(1);

    const text = cli(["rcm", "eval", a, b]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^repository\s+Workspace:\s+runs\s+sessions\s+requests\s+routing\s+deferred\s+share\s+violations/m);
    expect(text.stdout).toMatch(/^pooled\s+shown\s+2\s+4\s+\d+\s+1\.000\s+0\s+0\.00\s+0\s/m);
    expect(text.stdout).toMatch(/^zz-other\s+hidden\s+1\s+2\s/m);
  });
});
