import type { AuditFinding, AuditKind, Severity } from "../formats/audit.js";

/**
 * Each kind's severity (docs/mining.md, "Auditing a manifest", gives the reasons): an error is a task
 * that measures something else than its requests ask, or a text that must not ship; a warning is a
 * weakness a person weighs (a heuristic's reading, or depth that counts without a test of its own).
 */
const severityOf: Record<AuditKind, Severity> = {
  "untested-stage": "warning",
  "no-behaviour-stage": "error",
  "base-broken": "error",
  "p2p-fails-at-base": "error",
  "f2p-elsewhere": "error",
  "f2p-wrong-stage": "error",
  "order-dependent": "error",
  "repair-stage": "warning",
  "several-features": "error",
  leak: "warning",
  "commit-text": "error",
  "authored-contradicted": "error",
  unreviewed: "warning",
  "env-failure": "error",
};

/** A finding with its kind's severity, unless the rule that found it knows its evidence is weaker. */
export function finding(
  kind: AuditKind,
  stage: number | null,
  what: string,
  evidence: string,
  severity: Severity = severityOf[kind],
): AuditFinding {
  return { kind, severity, stage, what, evidence };
}

/** A list for evidence: the first few items, and how many more. */
export function listed(items: readonly string[], max = 5): string {
  return items.slice(0, max).join(", ") + (items.length > max ? `, ... (${items.length} in all)` : "");
}
