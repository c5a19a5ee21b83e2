import { detectableGapLine } from "../core/power.js";
import { groupNames, signatureNames, type Report, type SignatureCount, type SignatureName } from "./report-schema.js";
import { fmtInterval, fmtPercent, fmtPoints } from "./format-cells.js";
import { L, R, type Section } from "./section.js";

/** The sections that explain the gap: harness table, cross-configuration summary, failure categories. Pure. */

const groupTitle = { overall: "Overall", near: "Near", far: "Far" } as const;
const conditionTitle = { base: "uninterrupted", switch: "switched" } as const;
const unknown = "unknown";

export function harnessSection(report: Report): Section {
  return {
    id: "harness",
    title: "Configurations",
    notes: [
      "From each run.json: the agent adapter and the harness, its version, model and effort: as a real CLI agent recorded them when the run started, or switch-swe itself for its own agents (oracle, nop); the ATIF export says the same. Unknown = not recorded; none = the agent calls no model or sets no effort.",
    ],
    columns: [L("Configuration"), L("Agent"), L("Harness"), L("Version"), L("Model"), L("Effort")],
    rows: report.configs.map((c) => {
      // The harness's own agents record everything there is: a missing model or effort is none, not unknown.
      const absent = c.harness.name === "switch-swe" ? "none" : unknown;
      return [
        c.label,
        c.agent.name,
        c.harness.name ?? unknown,
        c.harness.version ?? unknown,
        c.harness.model ?? absent,
        c.harness.effort ?? absent,
      ];
    }),
  };
}

export function summarySection(report: Report): Section | null {
  if (report.configs.length < 2) return null;
  return {
    id: "summary",
    title: "Across configurations",
    notes: [
      `Mean of the configurations' gaps (each over its own focus tasks), their range, and a 95% percentile bootstrap CI of the mean that resamples each configuration's focus tasks (${report.bootstrap.resamples} resamples).`,
    ],
    columns: [L("Group"), R("Configurations"), R("Mean gap (pp)"), R("95% CI"), R("Smallest"), R("Largest")],
    rows: groupNames.map((g) => {
      const s = report.summary[g];
      return [groupTitle[g], String(s.configs), fmtPoints(s.mean_gap), fmtInterval(s.ci95), fmtPoints(s.min_gap), fmtPoints(s.max_gap)];
    }),
  };
}

/** Pairs and the smallest gap they detect (docs/report-format.md, "Power"), with the warning when it exceeds the paper's mean gap. */
export function powerSection(report: Report): Section {
  const lines = report.configs.flatMap((c) => {
    const who = report.configs.length > 1 ? `${c.label}: ` : "";
    return [
      `${who}${detectableGapLine(c.power.groups.overall)}.`,
      ...(c.power.warning === null ? [] : [`Warning: ${who}${c.power.warning}.`]),
    ];
  });
  return {
    id: "power",
    title: "Power: the smallest gap the pairs detect",
    notes: [
      ...lines,
      "Minimum detectable gap: the smallest resolution gap (percentage points, to 0.1) that the exact two-sided McNemar test at α = 0.05 detects with 80% power, for these pairs at the paired discordance (share of pairs whose two sessions disagree) observed in the run; 25% is assumed when no pair was discordant (marked *). – = no gap is detectable: even one as large as the discordance, every disagreeing pair on one side, reaches 80% power less often.",
    ],
    columns: [L("Configuration"), L("Group"), R("Pairs"), R("Discordant"), R("Discordance"), R("Min. detectable gap (pp)")],
    rows: report.configs.flatMap((c) =>
      groupNames.map((g) => {
        const p = c.power.groups[g];
        return [
          c.label,
          groupTitle[g],
          String(p.pairs),
          String(p.discordant_pairs ?? "–"),
          `${fmtPercent(p.discordance)}${p.assumed ? "*" : ""}`,
          p.min_detectable_gap === null ? "–" : p.min_detectable_gap.toFixed(1),
        ];
      }),
    ),
  };
}

const signatureTitle: Record<SignatureName, string> = {
  wrong_workspace_edits: "Wrong-workspace",
  cross_task_contamination: "Contamination",
  lost_requirement: "Lost requirement",
  reverted_work: "Reverted work",
  incomplete_execution: "Incomplete",
  submission: "Submission",
};

/** "sessions (events)", or n/a when no session of the condition could be checked. */
function signatureCell(s: SignatureCount, counted: boolean): string {
  if (s.sessions === null) return "n/a";
  return counted && s.count !== s.sessions ? `${s.sessions} (${s.count})` : String(s.sessions);
}

/** Outcome categories per group and condition; the signatures are a table of their own so neither is wider than a page. */
export function failureSection(report: Report): Section {
  const rows = report.configs.flatMap((c) =>
    groupNames.flatMap((g) =>
      (["base", "switch"] as const).map((cond) => {
        const f = c.failure_categories[g][cond];
        return [
          c.label,
          groupTitle[g],
          conditionTitle[cond],
          String(f.sessions),
          String(f.resolved),
          String(f.implementation),
          String(f.submission),
          String(f.incomplete_execution),
          String(f.not_scored),
        ];
      }),
    ),
  );
  return {
    id: "failures",
    title: "Failure categories",
    notes: [
      "Each unresolved session in one category: incomplete execution (not finalized, or the last focus stage or finalization request timed out or failed), else submission (the artifact did not apply, or the focus checkout at the end is not what the focus requests produced; in a run with --submission agent only what is measured: no submitted patch, not a patch, or a patch that did not apply), else implementation. Not scored: not run, no verdict, infrastructure fault.",
    ],
    columns: [
      L("Configuration"),
      L("Group"),
      L("Condition"),
      R("Sessions"),
      R("Resolved"),
      R("Implementation"),
      R("Submission"),
      R("Incomplete"),
      R("Not scored"),
    ],
    rows,
  };
}

const counted = new Set<SignatureName>(["wrong_workspace_edits", "cross_task_contamination", "reverted_work"]);

export function signaturesSection(report: Report): Section {
  return {
    id: "signatures",
    title: "Signatures",
    notes: [
      "Sessions showing each signature, with the number of edits, lines or files in parentheses when it differs; n/a = the run holds no evidence for it (runs recorded before per-request workspace states, a dataset that cannot be read). Definitions: docs/report-format.md.",
    ],
    columns: [L("Configuration"), L("Condition"), ...signatureNames.map((n) => R(signatureTitle[n]))],
    rows: report.configs.flatMap((c) =>
      (["base", "switch"] as const).map((cond) => [
        c.label,
        conditionTitle[cond],
        ...signatureNames.map((n) => signatureCell(c.signatures[cond][n], counted.has(n))),
      ]),
    ),
  };
}
