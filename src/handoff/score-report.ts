import { CONDITIONS, FIELDS, type Condition, type Field, type Rubric } from "./fields.js";
import type { ScoreProblem, ScoreResult } from "./score.js";
import type { SubmissionRecord } from "./submission-schema.js";

/** JSON scores carry 4 decimals: enough to compare, and free of float noise like 66.66666666666667. */
const round4 = (n: number): number => Math.round(n * 1e4) / 1e4;

export interface ScoreJson {
  overall: number;
  conditions: Record<Condition, number>;
  cases: Record<string, Record<Condition, { score: number; fields: Record<Field, number> }>>;
  problems: ScoreProblem[];
  record: SubmissionRecord;
}

/** The `--format json` document: exactly overall, conditions, cases, problems, record. */
export function scoreJson(result: ScoreResult, problems: ScoreProblem[], record: SubmissionRecord): ScoreJson {
  const cases: ScoreJson["cases"] = {};
  for (const [id, byCondition] of Object.entries(result.cases)) {
    cases[id] = Object.fromEntries(
      CONDITIONS.map((k) => [
        k,
        { score: round4(byCondition[k].score), fields: Object.fromEntries(FIELDS.map((f) => [f, round4(byCondition[k].fields[f])])) },
      ]),
    ) as ScoreJson["cases"][string];
  }
  return {
    overall: round4(result.overall),
    conditions: Object.fromEntries(CONDITIONS.map((k) => [k, round4(result.conditions[k])])) as Record<Condition, number>,
    cases,
    problems,
    record,
  };
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

function recordLines(record: SubmissionRecord): string[] {
  const show = (v: unknown) => (v === "" || v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v));
  const r = record;
  const retry =
    r.retry_policy.retries === 0
      ? "none"
      : `${r.retry_policy.retries} on ${r.retry_policy.retry_on.join(", ") || "nothing"}, ${r.retry_policy.delay_ms} ms apart`;
  const lines = [
    `  provider:       ${show(r.provider)}`,
    `  model:          ${show(r.model)}${r.model_version && r.model_version !== r.model ? ` (reported: ${r.model_version})` : ""}`,
    `  date:           ${show(r.date)}`,
    `  temperature:    ${r.temperature === null ? "provider default" : r.temperature}`,
    `  system prompt:  ${r.system_prompt === "" ? "none" : JSON.stringify(r.system_prompt)}`,
    `  host:           ${show(r.host)}`,
    `  retries:        ${retry}`,
    `  max output:     ${r.max_output_tokens === null ? "provider default" : `${r.max_output_tokens} tokens`}`,
    `  seed:           ${show(r.seed)}`,
    `  dataset:        ${r.dataset.file} (version ${r.dataset.version}, sha256 ${r.dataset.sha256.slice(0, 12)})`,
    `  prompt version: ${r.prompt_version}, ${r.tool}`,
  ];
  if (r.usage) lines.push(`  usage:          ${show(r.usage.input_tokens)} input, ${show(r.usage.output_tokens)} output tokens`);
  if (r.notes) lines.push(`  notes:          ${r.notes}`);
  return lines;
}

/** The readable report: the record, mean points per field per condition, scores per case, then every problem. */
export function scoreText(result: ScoreResult, problems: ScoreProblem[], record: SubmissionRecord, rubric: Rubric, title: string): string {
  const f2 = (n: number) => n.toFixed(2);
  const rows: string[][] = [["field (points)", ...CONDITIONS, "all"]];
  for (const f of FIELDS) {
    const perCondition = CONDITIONS.map((k) => result.fieldMeans[k][f]);
    rows.push([`${f} (${rubric[f]})`, ...perCondition.map(f2), f2(perCondition.reduce((a, b) => a + b, 0) / CONDITIONS.length)]);
  }
  rows.push(["overall (100)", ...CONDITIONS.map((k) => f2(result.conditions[k])), f2(result.overall)]);
  const caseRows: string[][] = [["case", ...CONDITIONS, "all"]];
  for (const [id, byCondition] of Object.entries(result.cases)) {
    const scores = CONDITIONS.map((k) => byCondition[k].score);
    caseRows.push([id, ...scores.map(f2), f2(scores.reduce((a, b) => a + b, 0) / CONDITIONS.length)]);
  }
  const lines = [title, "", "record:", ...recordLines(record), "", ...table(rows), "", ...table(caseRows), ""];
  lines.push(problems.length === 0 ? "problems: none" : `problems (${problems.length}):`);
  for (const p of problems) lines.push(`  ${p.path}: ${p.message}`);
  return `${lines.join("\n")}\n`;
}
