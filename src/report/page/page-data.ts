/** The report the page was built from (the inline JSON block) and the session rows every view shares. */
import type { ConfigReport, Report, SessionEntry } from "../report-schema.js";
import { byId } from "./dom.js";
import { interruptionNumber } from "./interruption-number.js";

export type Step = SessionEntry["schedule"][number];
export type Mark = SessionEntry["signature_marks"][number];

interface PageData {
  report: Report;
  links: string[];
}

export interface Row {
  ci: number;
  key: string;
  s: SessionEntry;
}

const data = JSON.parse(byId("report-data").textContent ?? "{}") as PageData;
export const report = data.report;
export const runLinks = data.links;
export const multi = report.configs.length > 1;
export const rows: Row[] = report.configs.flatMap((c, ci) => c.sessions.map((s) => ({ ci, key: `${ci}/${s.id}`, s })));
export const byKey = new Map(rows.map((r) => [r.key, r]));

export function configOf(r: Row): ConfigReport {
  return report.configs[r.ci]!;
}

/** The other condition's session of the same focus task, in the same configuration. */
export function partnerOf(r: Row): Row | undefined {
  return byKey.get(`${r.ci}/${r.s.pair}.${r.s.condition === "base" ? "switch" : "base"}`);
}

export function requestText(c: ConfigReport, step: Step): string {
  if (step.kind === "finalization") return "(finalization: finish the task and prepare it for evaluation)";
  return c.request_texts[step.task]?.[String(step.stage)] ?? "";
}

/** "focus" or "interruption N", N = the task's place among the session's interruptions by first appearance (as the ATIF export numbers them). */
export function roleName(s: SessionEntry, step: Step): string {
  if (step.role === "focus") return "focus";
  return `interruption ${interruptionNumber(s.schedule, step.task) ?? "?"}`;
}

export const signatureTitle: Record<Mark["signature"], string> = {
  wrong_workspace_edits: "wrong-workspace edit",
  cross_task_contamination: "contamination",
  lost_requirement: "lost requirement",
  reverted_work: "reverted work",
};
