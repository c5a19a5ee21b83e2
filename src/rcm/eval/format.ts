import type { EvalReport } from "./evaluate.js";

export function formatEvalReport(r: EvalReport): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `RCM offline evaluation (mode ${r.mode}, threshold ${r.threshold}, tokens: ${r.tokenizer}${r.workspace_lines ? "" : ", Workspace: lines hidden"})`,
    `  switched sessions       ${r.sessions}`,
    `  requests                ${r.requests} (${r.abstained} below the threshold: full history kept)`,
    `  routing accuracy        ${pct(r.routing_accuracy)}`,
    `  resumed focus steps     ${r.resumed_focus_steps}`,
    `  context tokens          ${r.rcm_tokens} of ${r.full_tokens} full-history tokens (ratio ${r.context_ratio.toFixed(3)})`,
    `  invariant violations    ${r.invariant_violations}`,
    `  routing+assembly        mean ${r.step_ms.mean} ms, p95 ${r.step_ms.p95} ms, max ${r.step_ms.max} ms per step`,
    "",
    "  session                                   requests  routed  ratio   violations",
  ];
  for (const s of r.per_session) {
    const ratio = s.full_tokens === 0 ? "-" : (s.rcm_tokens / s.full_tokens).toFixed(3);
    lines.push(`  ${s.session.padEnd(40)}  ${String(s.requests).padStart(8)}  ${String(s.routed_correctly).padStart(6)}  ${ratio.padStart(5)}  ${String(s.invariant_violations).padStart(10)}`);
  }
  return `${lines.join("\n")}\n`;
}
