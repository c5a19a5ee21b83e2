import type { EvalReport, EvalVariant } from "./evaluate.js";
import type { PooledEval, PooledRow } from "./pooled.js";

function variantLines(v: EvalVariant, requests: number): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const methods = Object.entries(v.methods)
    .sort((a, b) => b[1].requests - a[1].requests)
    .map(([m, c]) => `${m} ${c.correct}/${c.requests}`)
    .join(", ");
  const vsBase =
    v.uninterrupted_ratio === null
      ? "no uninterrupted sessions in the run"
      : `${v.uninterrupted_ratio.toFixed(3)} over ${v.uninterrupted_steps} steps`;
  const lines = [
    `Workspace: lines ${v.workspace_lines ? "shown" : "hidden"}`,
    `  routing accuracy        ${pct(v.routing_accuracy)} of the ${v.decided} requests decided (${v.routed_correctly} routed right)`,
    `  deferred                ${pct(v.deferred_share)} (${v.deferred} of ${requests} below the threshold: ` +
      "the auxiliary model decides them online; full history kept here)",
    `  of all requests         ${pct(v.accuracy_all_requests)} routed right (deferred ones counted as not routed)`,
    `  by method               ${methods}`,
    `  context / full history  ${v.rcm_tokens} of ${v.full_tokens} tokens (ratio ${v.context_ratio.toFixed(3)})`,
    `  context / uninterrupted ${vsBase}`,
    `  invariant violations    ${v.invariant_violations}`,
    ...(v.shared_files === null
      ? []
      : (
          [
            ["no two tasks share a source file", v.shared_files.apart],
            ["two tasks share a source file", v.shared_files.sharing],
          ] as const
        ).map(
          ([what, g]) =>
            `  ${what.padEnd(33)} ${g.requests === g.deferred ? "-" : pct(g.routing_accuracy)} ` +
            `(${g.routed_correctly} of ${g.requests - g.deferred} decided, ${g.deferred} deferred, ${g.sessions} sessions)`,
        )),
    `  routing+assembly        mean ${v.step_ms.mean} ms, p95 ${v.step_ms.p95} ms, max ${v.step_ms.max} ms per step`,
    "  session                                   requests  routed  ratio   violations",
  ];
  for (const s of v.per_session) {
    const ratio = s.full_tokens === 0 ? "-" : (s.rcm_tokens / s.full_tokens).toFixed(3);
    lines.push(
      `  ${s.session.padEnd(40)}  ${String(s.requests).padStart(8)}  ${String(s.routed_correctly).padStart(6)}  ${ratio.padStart(5)}  ${String(s.invariant_violations).padStart(10)}`,
    );
  }
  return lines;
}

export function formatEvalReport(r: EvalReport): string {
  const lines = [
    `RCM offline evaluation (mode ${r.mode}, threshold ${r.threshold}, tokens: ${r.tokenizer})`,
    `  switched sessions       ${r.sessions} (${r.uninterrupted_sessions} with their uninterrupted session)`,
    `  requests                ${r.requests}`,
    `  resumed focus steps     ${r.resumed_focus_steps}`,
  ];
  for (const v of r.variants) lines.push("", ...variantLines(v, r.requests));
  return `${lines.join("\n")}\n`;
}

/** Columns of the pooled table: heading, width, cell. */
const pooledColumns: ReadonlyArray<[string, number, (r: PooledRow) => string]> = [
  ["Workspace:", -10, (r) => (r.workspace_lines ? "shown" : "hidden")],
  ["runs", 4, (r) => String(r.runs)],
  ["sessions", 8, (r) => String(r.sessions)],
  ["requests", 8, (r) => String(r.requests)],
  ["routing", 7, (r) => r.routing_accuracy.toFixed(3)],
  ["deferred", 8, (r) => String(r.deferred)],
  ["share", 5, (r) => r.deferred_share.toFixed(2)],
  ["violations", 10, (r) => String(r.invariant_violations)],
  ["ctx/uninterrupted", 17, (r) => (r.uninterrupted_ratio === null ? "-" : r.uninterrupted_ratio.toFixed(3))],
  ["ctx/full", 8, (r) => r.context_ratio.toFixed(3)],
];

const cell = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));

/** `rcm eval RUN...` of several runs: one line per repository and variant, then the pooled lines. */
export function formatPooledEval(p: PooledEval): string {
  const head = ["repository".padEnd(16), ...pooledColumns.map(([h, w]) => cell(h, w))].join("  ");
  const line = (r: PooledRow) => [r.repository.padEnd(16), ...pooledColumns.map(([, w, f]) => cell(f(r), w))].join("  ");
  const lines = [
    `RCM offline evaluation of ${p.runs.length} runs (mode ${p.mode}, threshold ${p.threshold}); routing: of the requests decided;`,
    "  deferred: below the threshold (the auxiliary model decides them online; full history kept here), share: of the requests",
    ...p.runs.map((r) => `  ${r.repository}: ${r.run_dir}`),
    "",
    head,
    ...p.by_repository.map(line),
    ...p.pooled.map(line),
  ];
  return `${lines.join("\n")}\n`;
}
