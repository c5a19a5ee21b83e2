import { groupNames, type ConfigReport, type Report, type UsageMeans } from "./report-schema.js";
import { failureSection, harnessSection, powerSection, signaturesSection, summarySection } from "./sections-analysis.js";
import { inputsSection } from "./sections-inputs.js";
import { catalogueSections, paperSections } from "./sections-paper.js";
import { closingSection, headlineSection } from "./headline.js";
import { handoffSection } from "./sections-handoff.js";
import { DASH, fmtCost, fmtInterval, fmtNumber, fmtP, fmtPercent, fmtPercentInterval, fmtPoints, fmtRatio } from "./format-cells.js";
import { L, R, type Section } from "./section.js";

const groupTitle = { overall: "Overall", near: "Near", far: "Far" } as const;
const conditionTitle = { base: "uninterrupted", switch: "switched" } as const;

function resolutionSection(report: Report): Section {
  const rows = report.configs.flatMap((c) =>
    groupNames.map((g) => {
      const r = c.groups[g];
      return [
        c.label,
        groupTitle[g],
        String(r.n),
        fmtPercent(r.uninterrupted),
        fmtPercent(r.switched),
        fmtPoints(r.gap),
        fmtInterval(r.ci95),
        fmtP(r.mcnemar_p),
        `${r.discordant.base_only}/${r.discordant.switch_only}`,
      ];
    }),
  );
  return {
    id: "resolution",
    title: "Resolution",
    notes: [
      `Gap = uninterrupted − switched, in percentage points. 95% CI: percentile bootstrap over focus tasks (${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}). McNemar: exact two-sided test on the discordant pairs b/c (b = resolved only uninterrupted, c = resolved only switched). Denominator n = focus tasks in the sessions file; sessions not run, not finalized or without verdict count as unresolved.`,
    ],
    columns: [
      L("Configuration"),
      L("Group"),
      R("n"),
      R("Uninterrupted"),
      R("Switched"),
      R("Gap (pp)"),
      R("95% CI"),
      R("McNemar p"),
      R("b/c"),
    ],
    rows,
  };
}

function comparisonSection(report: Report): Section | null {
  const cmp = report.comparison;
  if (!cmp) return null;
  return {
    id: "comparison",
    title: `Comparison: A = ${cmp.a}, B = ${cmp.b}`,
    notes: [
      "Over focus tasks common to both runs; difference = gap(A) − gap(B), paired bootstrap 95% CI; p: exact two-sided sign-flip (paired permutation) test of a zero difference.",
    ],
    columns: [
      L("Group"),
      R("n common"),
      R("A unint."),
      R("A switched"),
      R("A gap"),
      R("B unint."),
      R("B switched"),
      R("B gap"),
      R("Difference (pp)"),
      R("95% CI"),
      R("p"),
    ],
    rows: groupNames.map((g) => {
      const r = cmp.groups[g];
      return [
        groupTitle[g],
        String(r.n_common),
        fmtPercent(r.a.uninterrupted),
        fmtPercent(r.a.switched),
        fmtPoints(r.a.gap),
        fmtPercent(r.b.uninterrupted),
        fmtPercent(r.b.switched),
        fmtPoints(r.b.gap),
        fmtPoints(r.gap_difference),
        fmtInterval(r.ci95),
        fmtP(r.p_value),
      ];
    }),
  };
}

/** The paper's Table 3: base / switch of the native run, +RCM of each RCM run, and the gaps. */
function rcmTableSection(report: Report): Section | null {
  const t = report.rcm_table;
  if (!t) return null;
  const rate = (r: { rate: number | null; ci95: [number, number] | null }) => [fmtPercent(r.rate), fmtPercentInterval(r.ci95)];
  const pts = (p: { points: number | null; ci95: [number, number] | null }) => [fmtPoints(p.points), fmtInterval(p.ci95)];
  const rows = groupNames.flatMap((g) => {
    const r = t.groups[g];
    return [
      [groupTitle[g], t.native, String(r.n_common), ...rate(r.base), ...rate(r.switch), ...pts(r.gap), DASH, DASH, DASH, DASH],
      ...r.rcm.map((a) => [
        groupTitle[g],
        a.label,
        String(r.n_common),
        ...rate(a.uninterrupted),
        ...rate(a.switched),
        ...pts(a.gap),
        ...pts(a.recovered),
        ...pts(a.remaining_gap),
      ]),
    ];
  });
  return {
    id: "rcm_table",
    title: `RCM (Table 3): native = ${t.native}; +RCM = ${t.rcm.join(", ")}`,
    notes: [
      "Over the focus tasks every run ran (n). The native row is base (uninterrupted) and switch; an RCM row's Switched column is +RCM. Gap = the row's uninterrupted − switched. Recovered = +RCM − native switched; Remaining = native uninterrupted − +RCM. 95% CI: percentile bootstrap over focus tasks, paired for differences.",
    ],
    columns: [
      L("Group"),
      L("Configuration"),
      R("n"),
      R("Uninterrupted"),
      R("95% CI"),
      R("Switched"),
      R("95% CI"),
      R("Gap (pp)"),
      R("95% CI"),
      R("Recovered (pp)"),
      R("95% CI"),
      R("Remaining (pp)"),
      R("95% CI"),
    ],
    rows,
  };
}

function attributionSection(report: Report): Section {
  const notes = [
    "Sessions unresolved because tests failed (finalized, verified, applied): the stages whose F2P tests did not all pass. Earlier-stage failure = a failed stage other than the last; share = of attributed.",
  ];
  const rows: string[][] = [];
  for (const c of report.configs) {
    if (!c.stage_attribution.available) {
      notes.push(`${c.label}: unavailable (${c.stage_attribution.note ?? "no dataset"}).`);
      continue;
    }
    for (const g of groupNames) {
      for (const cond of ["base", "switch"] as const) {
        const a = c.stage_attribution.groups[g][cond];
        rows.push([
          c.label,
          groupTitle[g],
          conditionTitle[cond],
          String(a.unresolved),
          String(a.attributed),
          String(a.earlier_stage_failure),
          fmtPercent(a.earlier_stage_share),
          String(a.last_stage_only),
          String(a.p2p_only),
          Object.entries(a.failed_stages)
            .map(([st, k]) => `S${st}:${k}`)
            .join(" ") || DASH,
        ]);
      }
    }
  }
  return {
    id: "stage-attribution",
    title: "Stage attribution",
    notes,
    columns: [
      L("Configuration"),
      L("Group"),
      L("Condition"),
      R("Unresolved"),
      R("Attributed"),
      R("Earlier-stage"),
      R("Share"),
      R("Last only"),
      R("P2P only"),
      L("Failed stages"),
    ],
    rows,
  };
}

function usageRow(c: ConfigReport, scope: string, u: UsageMeans): string[] {
  return [
    c.label,
    scope,
    String(u.sessions),
    fmtNumber(u.tokens, 0),
    fmtNumber(u.model_calls),
    fmtNumber(u.tool_calls),
    fmtCost(u.cost_usd),
    fmtNumber(u.auxiliary_tokens, 0),
  ];
}

function workloadSections(report: Report): Section[] {
  const means: Section = {
    id: "workload",
    title: "Workload (mean per session)",
    notes: [
      "Tokens = input + cached input + cache writes + output (+ reasoning when not inside output); auxiliary (context-manager) calls included and also shown alone. Sessions that ran count with what they used; sessions never run are left out.",
      "Resumed focus stages = focus stage requests delivered after work in another workspace (first focus request and finalization excluded). 'Same stages, uninterrupted' = those stage numbers in the paired uninterrupted session.",
    ],
    columns: [L("Configuration"), L("Scope"), R("Sessions"), R("Tokens"), R("Model calls"), R("Tool calls"), R("Cost"), R("Aux tokens")],
    rows: report.configs.flatMap((c) =>
      (
        [
          ["", c.workload],
          ["near: ", c.workload_by_locality.near],
          ["far: ", c.workload_by_locality.far],
        ] as const
      ).flatMap(([prefix, w]) => [
        usageRow(c, `${prefix}uninterrupted session`, w.uninterrupted),
        usageRow(c, `${prefix}switched session`, w.switched),
        usageRow(c, `${prefix}resumed focus stages`, w.resumed_focus),
        usageRow(c, `${prefix}same stages, uninterrupted (paired)`, w.resumed_focus_paired.uninterrupted_same_stages),
      ]),
    ),
  };
  const ratios: Section = {
    id: "workload-ratios",
    title: "Workload ratios",
    notes: [],
    columns: [L("Configuration"), L("Ratio"), R("Tokens"), R("Model calls"), R("Tool calls"), R("Cost")],
    rows: report.configs.flatMap((c) => {
      const a = c.workload.ratios.switched_over_uninterrupted;
      const b = c.workload.ratios.resumed_focus_over_uninterrupted_same_stages;
      return [
        [c.label, "switched / uninterrupted", fmtRatio(a.tokens), fmtRatio(a.model_calls), fmtRatio(a.tool_calls), fmtRatio(a.cost_usd)],
        [
          c.label,
          "resumed stages / same stages uninterrupted",
          fmtRatio(b.tokens),
          fmtRatio(b.model_calls),
          fmtRatio(b.tool_calls),
          fmtRatio(b.cost_usd),
        ],
      ];
    }),
  };
  return [means, ratios];
}

function profileSection(report: Report): Section {
  return {
    id: "profile",
    title: "Schedule profile (median per session)",
    notes: [
      "From the sessions file: repositories of the focus tasks, requests, workspace switches (consecutive requests naming different workspaces), focus returns.",
    ],
    columns: [
      L("Configuration"),
      L("Group"),
      L("Condition"),
      R("Sessions"),
      R("Repositories"),
      R("Requests"),
      R("Workspace switches"),
      R("Focus returns"),
    ],
    rows: report.configs.flatMap((c) =>
      groupNames.flatMap((g) =>
        (["base", "switch"] as const).map((cond) => {
          const p = c.profile[g][cond];
          return [
            c.label,
            groupTitle[g],
            conditionTitle[cond],
            String(p.sessions),
            String(p.repositories),
            fmtNumber(p.requests.median),
            fmtNumber(p.workspace_switches.median),
            fmtNumber(p.focus_returns.median),
          ];
        }),
      ),
    ),
  };
}

/** Two tables (what failed; what ran out of time or was spent again) so neither is wider than a page. */
function errorsSections(report: Report): Section[] {
  const per = (f: (e: ConfigReport["errors"]["base"]) => string[]) =>
    report.configs.flatMap((c) => (["base", "switch"] as const).map((cond) => [c.label, conditionTitle[cond], ...f(c.errors[cond])]));
  return [
    {
      id: "errors",
      title: "Errors",
      notes: ["Infra faults (run) = sessions with an infrastructure fault in any attempt; restarts = attempts beyond the first."],
      columns: [
        L("Configuration"),
        L("Condition"),
        R("Sessions"),
        R("Not run"),
        R("Not finalized"),
        R("No verdict"),
        R("Infra (run)"),
        R("Restarts"),
        R("Infra (verify)"),
        R("Not applied"),
        R("Suspicious"),
      ],
      rows: per((e) =>
        [
          e.sessions,
          e.not_run,
          e.not_finalized,
          e.no_verdict,
          e.infra_fault_run,
          e.restarts,
          e.infra_fault_verify,
          e.not_applied,
          e.suspicious ?? 0,
        ].map(String),
      ),
    },
    {
      id: "errors-time",
      title: "Timeouts and superseded attempts",
      notes: [
        "Timeouts = requests that ran out of budget; continuations = timeout continuations used. Superseded tokens and cost = what attempts a restart replaced used (spent, but not in the workload means).",
      ],
      columns: [
        L("Configuration"),
        L("Condition"),
        R("Timeouts"),
        R("Continuations"),
        R("Agent errors"),
        R("Superseded tokens"),
        R("Superseded cost"),
      ],
      rows: per((e) => [
        String(e.timeouts),
        String(e.continuations),
        String(e.agent_errors),
        fmtNumber(e.superseded_tokens, 0),
        fmtCost(e.superseded_cost_usd),
      ]),
    },
  ];
}

const unscoredReasons = new Set(["not run", "not finalized", "no verdict", "infra fault", "suspicious"]);

function unscoredSection(report: Report): Section {
  const rows = report.configs.flatMap((c) =>
    c.sessions
      .filter((s) => s.reason !== null && unscoredReasons.has(s.reason))
      .map((s) => [c.label, s.id, s.reason ?? "", s.detail ?? ""]),
  );
  return {
    id: "unscored",
    title: "Sessions counted unresolved without a score",
    notes: rows.length === 0 ? ["None: every session ran, finalized and has a verdict."] : [],
    columns: [L("Configuration"), L("Session"), L("Reason"), L("Detail")],
    rows,
  };
}

function warningsSection(report: Report): Section | null {
  const rows = report.configs.flatMap((c) => c.warnings.map((w) => [c.label, w]));
  if (rows.length === 0) return null;
  return { id: "warnings", title: "Warnings", notes: [], columns: [L("Configuration"), L("Warning")], rows };
}

export interface SectionOptions {
  /** The task catalogue (one row per focus task: long; table and markdown show it when asked, html always). */
  catalogue?: boolean;
}

/** The report as the ordered tables every text format shows, the result first and last. Pure. */
export function reportSections(report: Report, opts: SectionOptions = {}): Section[] {
  return [
    headlineSection(report.configs),
    inputsSection(report),
    harnessSection(report),
    resolutionSection(report),
    powerSection(report),
    summarySection(report),
    comparisonSection(report),
    rcmTableSection(report),
    ...paperSections(report),
    failureSection(report),
    signaturesSection(report),
    attributionSection(report),
    ...workloadSections(report),
    profileSection(report),
    ...errorsSections(report),
    unscoredSection(report),
    handoffSection(report),
    ...(opts.catalogue ? catalogueSections(report) : []),
    warningsSection(report),
    closingSection(report.configs),
  ].filter((s): s is Section => s !== null);
}
