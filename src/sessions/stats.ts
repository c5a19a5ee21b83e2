import type { Condition, Locality, ScheduleStep, SessionsFile } from "../formats/sessions.js";
import { sessionId } from "../formats/sessions.js";

export interface SessionProfile {
  session: string;
  condition: Condition;
  locality: Locality;
  requests: number;
  workspace_switches: number;
  focus_returns: number;
  /** The focus task's substantive stages (its stage requests; the same in both conditions). */
  focus_stages: number;
}

export interface ProfileSummary {
  sessions: number;
  median_requests: number;
  median_workspace_switches: number;
  median_focus_returns: number;
  median_focus_stages: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface StepsProfile {
  requests: number;
  /** Consecutive requests that name different workspaces. */
  workspace_switches: number;
  /** Substantive focus requests right after a request in another workspace (finalization excluded). */
  focus_returns: number;
  /** Per step: is it a focus return (the report's timeline marks them). */
  returns: boolean[];
}

export function profileSteps(steps: readonly ScheduleStep[], focus: string): StepsProfile {
  let switches = 0;
  let focusReturns = 0;
  const returns = steps.map((step, i) => {
    const moved = i > 0 && steps[i - 1]!.workspace !== step.workspace;
    if (moved) switches++;
    const isReturn = moved && step.task === focus && step.kind === "stage";
    if (isReturn) focusReturns++;
    return isReturn;
  });
  return { requests: steps.length, workspace_switches: switches, focus_returns: focusReturns, returns };
}

/** The focus task's substantive stages in a schedule (its stage requests). */
export function focusStages(steps: readonly ScheduleStep[], focus: string): number {
  return steps.filter((s) => s.task === focus && s.kind === "stage").length;
}

export function sessionProfiles(file: Pick<SessionsFile, "pairs">): SessionProfile[] {
  return file.pairs.flatMap((p) =>
    (["base", "switch"] as const).map((condition) => {
      const steps = p.schedules[condition];
      const { requests, workspace_switches, focus_returns } = profileSteps(steps, p.focus);
      const focus_stages = focusStages(steps, p.focus);
      return {
        session: sessionId(p.id, condition),
        condition,
        locality: p.locality,
        requests,
        workspace_switches,
        focus_returns,
        focus_stages,
      };
    }),
  );
}

function summarize(list: readonly SessionProfile[]): ProfileSummary {
  return {
    sessions: list.length,
    median_requests: median(list.map((s) => s.requests)),
    median_workspace_switches: median(list.map((s) => s.workspace_switches)),
    median_focus_returns: median(list.map((s) => s.focus_returns)),
    median_focus_stages: median(list.map((s) => s.focus_stages)),
  };
}

export type ProfileTable = Record<Condition, Record<"overall" | Locality, ProfileSummary>>;

/**
 * The pairs of several sessions files as one benchmark (the shipped manifests are one file per
 * repository): what `sessions stats A B ...` profiles and judges the power of. Refused when two files
 * hold the same pair id (the same dataset twice).
 */
export function pooledPairs(files: ReadonlyArray<{ path: string; file: SessionsFile }>): {
  pairs: SessionsFile["pairs"];
  duplicate: { id: string; path: string } | null;
} {
  const seen = new Set<string>();
  const pairs: SessionsFile["pairs"] = [];
  for (const { path, file } of files) {
    for (const p of file.pairs) {
      if (seen.has(p.id)) return { pairs, duplicate: { id: p.id, path } };
      seen.add(p.id);
      pairs.push(p);
    }
  }
  return { pairs, duplicate: null };
}

/** Medians per condition, overall and per locality group. */
export function profileTable(file: Pick<SessionsFile, "pairs">): ProfileTable {
  const all = sessionProfiles(file);
  const table = {} as ProfileTable;
  for (const c of ["base", "switch"] as const) {
    const inC = all.filter((s) => s.condition === c);
    table[c] = {
      overall: summarize(inC),
      near: summarize(inC.filter((s) => s.locality === "near")),
      far: summarize(inC.filter((s) => s.locality === "far")),
    };
  }
  return table;
}

export function formatProfileTable(t: ProfileTable): string {
  const rows = [["condition", "group", "sessions", "median requests", "median switches", "median focus returns", "median focus stages"]];
  for (const c of ["base", "switch"] as const) {
    for (const g of ["overall", "near", "far"] as const) {
      const s = t[c][g];
      rows.push([
        c === "base" ? "uninterrupted" : "switched",
        g,
        String(s.sessions),
        String(s.median_requests),
        String(s.median_workspace_switches),
        String(s.median_focus_returns),
        String(s.median_focus_stages),
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")).join("\n");
}

/**
 * A warning when focus tasks have fewer than two substantive stages: with one stage, a switched
 * session has no focus return, so the benchmark's own quantity cannot appear. Null when all have two.
 */
export function fewStagesWarning(file: Pick<SessionsFile, "pairs">): string | null {
  const few = file.pairs.filter((p) => focusStages(p.schedules.base, p.focus) < 2).map((p) => p.focus);
  if (few.length === 0) return null;
  const list = few.slice(0, 5).join(", ") + (few.length > 5 ? ", ..." : "");
  return (
    `${few.length} of ${file.pairs.length} focus task(s) have fewer than two substantive stages (${list}): ` +
    "their switched sessions have no focus return, so no resumption gap can show; use multi-stage tasks (`tasks mine`, or `tasks import-swebench --requests`)"
  );
}
