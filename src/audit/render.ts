import type { AuditReport, AuditTask } from "../formats/audit.js";

/** One line per finding: `task: stage K: kind: what, evidence` (`task: kind: ...` for the task as a whole). */
export function findingLines(t: AuditTask): string[] {
  return t.findings.map(
    (f) =>
      `${t.id}: ${f.stage === null ? "" : `stage ${f.stage}: `}${f.kind}${f.severity === "warning" ? " (warning)" : ""}: ${f.what}, ${f.evidence}`,
  );
}

/** The summary line: tasks, stages, findings by kind, errors and warnings. */
export function summaryLine(r: AuditReport): string {
  const s = r.summary;
  const kinds = Object.entries(s.by_kind)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const scope =
    r.repos_read.length > 0
      ? `patches of ${r.repos_read.join(", ")} read${r.run_tests ? ", tests run" : ""}`
      : "manifests only (no --repo: patch checks skipped)";
  return `${s.tasks} task(s), ${s.stages} stage(s): ${s.errors} error(s), ${s.warnings} warning(s)${kinds ? ` (${kinds})` : ""}; ${scope}`;
}
