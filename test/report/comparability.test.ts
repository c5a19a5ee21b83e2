import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../src/core/digest.js";
import { datasetDigest } from "../../src/dataset/pack.js";
import type { Report } from "../../src/report/index.js";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";

/**
 * Real runs through the real CLI: a run of one pair of a two-pair sessions file (A), a run of a one-pair
 * subset of it (B), and a copy of A whose run.json says it ran another dataset (C).
 */
let fx: RunFixture;
let env: NodeJS.ProcessEnv;
let subsetPath: string;
let first: string;
let runA: string;
let runB: string;
let runC: string;

function run(out: string, sessions: string, ...extra: string[]): void {
  const r = cli(
    [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      sessions,
      "--out",
      out,
      "--agent",
      "oracle",
      "--no-verify",
      "--sandbox",
      "none",
      "--limits",
      "none",
      "--quiet",
      ...extra,
    ],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(() => {
  fx = makeRunFixture(2);
  env = { SWITCH_SWE_CACHE: fx.cache };
  first = fx.sessions.pairs[0]!.id;
  subsetPath = join(fx.root, "subset.json");
  const s = cli(["sessions", "subset", fx.sessionsPath, "--pair", first, "--out", subsetPath, "--dataset", fx.datasetDir], { env });
  expect(s.code, s.stderr).toBe(0);
  runA = join(fx.root, "a");
  runB = join(fx.root, "b");
  runC = join(fx.root, "c");
  run(runA, fx.sessionsPath, "--session", `${first}.base`, "--session", `${first}.switch`);
  run(runB, subsetPath);
  cpSync(runA, runC, { recursive: true });
  const config = JSON.parse(readFileSync(join(runC, "run.json"), "utf8")) as { label?: string; dataset: { sha256: string } };
  config.dataset.sha256 = "0".repeat(64);
  config.label = "C";
  writeFileSync(join(runC, "run.json"), JSON.stringify(config));
}, 600_000);

describe("sessions subset", () => {
  it("writes the named pairs, unchanged, and the subset validates", () => {
    const sub = JSON.parse(readFileSync(subsetPath, "utf8")) as SessionsFile;
    expect(sub.pairs).toEqual([fx.sessions.pairs[0]]);
    expect({ ...sub, pairs: [] }).toEqual({ ...fx.sessions, pairs: [] });
    expect(cli(["sessions", "validate", subsetPath, "--dataset", fx.datasetDir], { env }).code).toBe(0);
  });

  it("refuses unknown pairs, one line each, exit 2, and writes nothing", () => {
    const out = join(fx.root, "never.json");
    const r = cli(["sessions", "subset", fx.sessionsPath, "--pair", "nope", first, "zilch", "--out", out], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      `${fx.sessionsPath}: --pair: no pair "nope" in this sessions file (a pair is named by its focus task)`,
      `${fx.sessionsPath}: --pair: no pair "zilch" in this sessions file (a pair is named by its focus task)`,
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("with --dataset, a subset that does not validate is not written (exit 1)", () => {
    const bad = JSON.parse(readFileSync(fx.sessionsPath, "utf8")) as SessionsFile;
    const sw = bad.pairs[0]!.schedules.switch;
    sw.unshift(sw.pop()!);
    const badPath = join(fx.root, "bad-sessions.json");
    writeFileSync(badPath, JSON.stringify(bad));
    const out = join(fx.root, "bad-subset.json");
    const r = cli(["sessions", "subset", badPath, "--pair", first, "--out", out, "--dataset", fx.datasetDir], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${first}.switch: finalization-last:`);
    expect(existsSync(out)).toBe(false);
  });
});

describe("comparability of runs", () => {
  it("run.json records the digests of the sessions file and the dataset", () => {
    const config = JSON.parse(readFileSync(join(runA, "run.json"), "utf8")) as {
      dataset: { sha256: string };
      sessions_file: { sha256: string };
    };
    expect(config.dataset.sha256).toBe(datasetDigest(fx.datasetDir));
    expect(config.dataset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(config.sessions_file.sha256).toBe(sha256(readFileSync(fx.sessionsPath)));
  });

  it("report and compare refuse runs of different sessions files in one line naming both digests, exit 2", () => {
    const full = sha256(readFileSync(fx.sessionsPath));
    const sub = sha256(readFileSync(subsetPath));
    for (const command of ["report", "compare"]) {
      const r = cli([command, runA, runB], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `${join(runB, "run.json")}: sessions_file.sha256: this run ran sessions file ${sub}, ${runA} ran ${full}: runs of different sessions files are not averaged or compared (--allow-mixed to report them anyway)`,
      );
    }
  });

  it("refuses runs of different datasets, and --allow-mixed reports them, naming every digest", () => {
    const r = cli(["report", runA, runC], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `${join(runC, "run.json")}: dataset.sha256: this run ran dataset ${"0".repeat(64)}, ${runA} ran ${datasetDigest(fx.datasetDir)}: runs of different datasets are not averaged or compared (--allow-mixed to report them anyway)`,
    );
    const mixed = cli(["compare", runA, runB, "--allow-mixed", "--format", "json"], { env });
    expect(mixed.code, mixed.stderr).toBe(0);
    const doc = JSON.parse(mixed.stdout) as Report;
    expect(doc.configs.map((c) => c.sessions_file.sha256)).toEqual([
      sha256(readFileSync(fx.sessionsPath)),
      sha256(readFileSync(subsetPath)),
    ]);
    expect(doc.configs.map((c) => c.dataset.sha256)).toEqual([datasetDigest(fx.datasetDir), datasetDigest(fx.datasetDir)]);
    const table = cli(["report", runA, runB, "--allow-mixed"], { env });
    expect(table.stdout).toContain("The configurations ran different sessions files or datasets (--allow-mixed)");
  });

  it("says how many pairs never ran before any figure, in every format", () => {
    const doc = JSON.parse(cli(["report", runA, "--format", "json"], { env }).stdout) as Report;
    expect(doc.configs[0]!.pairs_run).toEqual({ pairs: 2, not_run: 1, partly_run: 0 });
    const subDoc = JSON.parse(cli(["report", runB, "--format", "json"], { env }).stdout) as Report;
    expect(subDoc.configs[0]!.pairs_run).toEqual({ pairs: 1, not_run: 0, partly_run: 0 });

    const said = "1 of 2 pairs of the sessions file never ran";
    const table = cli(["report", runA], { env }).stdout;
    // The result first, then the inputs: before any other figure.
    expect(table.split("\n")[0]).toBe("Result: the resumption gap");
    expect(table.indexOf("\nInputs\n")).toBeLessThan(table.indexOf("\nConfigurations\n"));
    expect(table.indexOf(said)).toBeGreaterThan(0);
    expect(table.indexOf(said)).toBeLessThan(table.indexOf("Resolution"));
    expect(table).toContain(sha256(readFileSync(fx.sessionsPath)).slice(0, 12));
    expect(table).toContain(datasetDigest(fx.datasetDir).slice(0, 12));
    const md = cli(["report", runA, "--format", "markdown"], { env }).stdout;
    expect(md.indexOf("### Inputs")).toBeLessThan(md.indexOf(said));
    expect(md.indexOf(said)).toBeLessThan(md.indexOf("### Resolution"));
    const html = cli(["report", runA, "--format", "html"], { env }).stdout;
    expect(html.indexOf(said)).toBeGreaterThan(0);
    expect(html.indexOf(said)).toBeLessThan(html.indexOf('<h2 id="charts">'));
    expect(html.match(/id="inputs"/g)).toHaveLength(1);
    const csv = cli(["report", runA, "--format", "csv"], { env }).stdout.trimEnd().split("\r\n");
    const header = csv[0]!.split(",");
    const row = csv[1]!.split(",");
    expect(row[header.indexOf("pairs_not_run")]).toBe("1");
    expect(row[header.indexOf("sessions_sha256")]).toBe(sha256(readFileSync(fx.sessionsPath)));
    expect(row[header.indexOf("dataset_sha256")]).toBe(datasetDigest(fx.datasetDir));
  });
});
