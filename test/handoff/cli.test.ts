import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pilotPath, runCli, tempDir } from "./cli-helpers.js";
import { perfectSubmission, pilotDataset } from "./fixtures.js";

describe("switch-swe handoff (built CLI)", () => {
  let dir: string;
  let perfect: string;
  beforeAll(() => {
    dir = tempDir();
    perfect = join(dir, "perfect.json");
    writeFileSync(perfect, JSON.stringify(perfectSubmission(pilotDataset())));
  });

  it("validate-scorer passes every check and exits 0", async () => {
    const r = await runCli(["handoff", "validate-scorer"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {4}a perfect submission scores 100$/m);
    expect(r.stdout).toMatch(/all \d+ scorer checks passed/);
    expect(r.stdout).not.toContain("FAIL");
  });

  it("validate accepts the pilot and exits 0", async () => {
    const r = await runCli(["handoff", "validate", pilotPath]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("valid, pilot.json (version pilot-1, 6 cases)");
  });

  it("validate lists every problem of a bad dataset, one per line, and exits 2 without a stack trace", async () => {
    const bad = JSON.parse(readFileSync(pilotPath, "utf8")) as {
      rubric: Record<string, number>;
      cases: { id: string; answer: Record<string, unknown> }[];
    };
    bad.rubric.owner = 6;
    bad.cases[1]!.id = bad.cases[0]!.id;
    bad.cases[2]!.answer.owner = "w99";
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify(bad));
    const r = await runCli(["handoff", "validate", file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `${file}: rubric: points add up to 101, not 100`,
      `${file}: cases[2].answer.owner: "w99" is not a candidate id of owner`,
      `${file}: cases[1].id: duplicate case id "invoice-csv-dates" (also cases[0])`,
    ]);
  });

  it("prompts writes one file per case x condition, byte-identical on a second run", async () => {
    const a = join(dir, "prompts-a");
    const b = join(dir, "prompts-b");
    expect((await runCli(["handoff", "prompts", pilotPath, "--out", a])).code).toBe(0);
    expect((await runCli(["handoff", "prompts", pilotPath, "--out", b])).code).toBe(0);
    const files = readdirSync(a).sort();
    expect(files).toHaveLength(19);
    for (const f of files) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
  });

  it("template writes a submission that scores 0, and refuses to overwrite without --force", async () => {
    const file = join(dir, "template.json");
    expect((await runCli(["handoff", "template", pilotPath, "--out", file])).code).toBe(0);
    const again = await runCli(["handoff", "template", pilotPath, "--out", file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`${file}: already exists (use --force to overwrite it)\n`);
    expect((await runCli(["handoff", "template", pilotPath, "--out", file, "--force"])).code).toBe(0);
    const r = await runCli(["handoff", "score", pilotPath, "--submission", file, "--format", "json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { overall: number; problems: { path: string; message: string }[] };
    expect(out.overall).toBe(0);
    expect(out.problems).toContainEqual({ path: "record.model", message: "not set" });
    expect(out.problems).toContainEqual({ path: "answers.invoice-csv-dates.transcript", message: "no answer" });
  });

  it("score prints the record, a table per condition and field, and exits 0", async () => {
    const r = await runCli(["handoff", "score", pilotPath, "--submission", perfect]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  model:          answer-key\n");
    expect(r.stdout).toMatch(/^field \(points\)\s+transcript\s+memory\s+handoff\s+all$/m);
    expect(r.stdout).toMatch(/^current_state \(20\)\s+20\.00\s+20\.00\s+20\.00\s+20\.00$/m);
    expect(r.stdout).toMatch(/^overall \(100\)\s+100\.00\s+100\.00\s+100\.00\s+100\.00$/m);
    expect(r.stdout).toContain("problems: none\n");
  });

  it("score --format json prints exactly overall, conditions, cases, problems and record", async () => {
    const sub = perfectSubmission(pilotDataset());
    sub.answers["invoice-csv-dates"]!.memory!.decisions = ["d1", "nope"];
    const file = join(dir, "partial.json");
    writeFileSync(file, JSON.stringify(sub));
    const r = await runCli(["handoff", "score", pilotPath, "--submission", file, "--format", "json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown> & {
      overall: number;
      conditions: Record<string, number>;
      cases: Record<string, Record<string, { score: number; fields: Record<string, number> }>>;
    };
    expect(Object.keys(out)).toEqual(["overall", "conditions", "cases", "problems", "record"]);
    expect(Object.keys(out.conditions)).toEqual(["transcript", "memory", "handoff"]);
    expect(out.cases["invoice-csv-dates"]!.memory).toEqual({
      score: 85,
      fields: {
        objective: 10,
        current_state: 20,
        decisions: 0,
        evidence: 15,
        constraints: 10,
        next_action: 15,
        owner: 5,
        open_questions: 10,
      },
    });
    expect(out.conditions.memory).toBe(97.5);
    expect(out.overall).toBe(99.1667);
    expect(out.problems).toEqual([
      { path: "answers.invoice-csv-dates.memory.decisions[1]", message: '"nope" is not a candidate id of decisions' },
    ]);
    expect((out.record as { model: string }).model).toBe("answer-key");
  });

  it("score --output writes the report to a file", async () => {
    const file = join(dir, "report.json");
    const r = await runCli(["handoff", "score", pilotPath, "--submission", perfect, "--format", "json", "--output", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect((JSON.parse(readFileSync(file, "utf8")) as { overall: number }).overall).toBe(100);
  });

  it("score exits 2 for a submission that is not JSON or has the wrong shape", async () => {
    const notJson = join(dir, "not-json.json");
    writeFileSync(notJson, "{answers:");
    const a = await runCli(["handoff", "score", pilotPath, "--submission", notJson]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(new RegExp(`^${notJson.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(`));
    expect(a.stderr).not.toContain("    at ");

    const wrong = join(dir, "wrong-shape.json");
    const sub = perfectSubmission(pilotDataset()) as unknown as {
      record: Record<string, unknown>;
      answers: Record<string, Record<string, unknown>>;
    };
    delete sub.record.model;
    sub.answers["invoice-csv-dates"]!.dream = {};
    (sub.answers["config-module-split"]!.memory as Record<string, unknown>).objective = 3;
    writeFileSync(wrong, JSON.stringify(sub));
    const b = await runCli(["handoff", "score", pilotPath, "--submission", wrong]);
    expect(b.code).toBe(2);
    expect(b.stderr.trimEnd().split("\n")).toEqual([
      `${wrong}: record.model: missing`,
      `${wrong}: answers.invoice-csv-dates: unknown field "dream"`,
      `${wrong}: answers.config-module-split.memory.objective: an answer is a candidate id, a list of candidate ids, or null`,
    ]);
    expect(existsSync(join(dir, "nothing"))).toBe(false);
  });

  it("rejects bad usage with exit 2", async () => {
    expect((await runCli(["handoff", "score", pilotPath, "--submission", perfect, "--format", "xml"])).code).toBe(2);
    expect((await runCli(["handoff", "score", join(dir, "missing.json"), "--submission", perfect])).code).toBe(2);
    const noBase = await runCli(["handoff", "run", pilotPath, "--model", "acme:m1", "--out", join(dir, "x.json")]);
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toBe('--base-url: needed for provider "acme"\n');
    const noRule = await runCli(["handoff", "run", pilotPath, "--model", "openai:gpt-x", "--retries", "2", "--out", join(dir, "x.json")]);
    expect(noRule.code).toBe(2);
    expect(noRule.stderr).toBe("--retries: needs --retry-on (what the retries are for)\n");
    expect((await runCli(["handoff", "run", pilotPath, "--model", "no-colon"])).code).toBe(2);
    expect((await runCli(["handoff", "run", pilotPath, "--model", "openai:x", "--retry-on", "timeout", "--retries", "1"])).code).toBe(2);
    expect(existsSync(join(dir, "x.json"))).toBe(false);
  });
});
