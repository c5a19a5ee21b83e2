import { firstProblems, zodProblems } from "../core/errors.js";
import { readJson } from "../core/json-file.js";
import { catalogue, farMinusNear, interruptionReuse, resolutionByContext, resumedFocusTokenRatio } from "./analyses.js";
import { headlineOf } from "./headline.js";
import { reportReadSchema, type ConfigReport, type ConfigReportRead, type Report } from "./report-schema.js";

/**
 * Fills in what an older report/2 document lacks, from its own figures: the headline is a copy of
 * `groups.overall` and `power` in sentences, and the analyses are functions of its sessions at its own
 * bootstrap seed and resamples, so the result is what `report` would write today from the same runs
 * (but the focus context, which older runs' documents did not record: those sessions are unmeasured). Pure.
 */
export function completeConfig(c: ConfigReportRead, bootstrap: Report["bootstrap"]): ConfigReport {
  const sessions = c.sessions.map((s) => ({
    ...s,
    usage: s.usage === null ? null : { ...s.usage, focus_context_tokens: s.usage.focus_context_tokens ?? null },
  }));
  const analysed = { groups: c.groups, sessions, request_texts: c.request_texts };
  const opts = { seed: bootstrap.seed, resamples: bootstrap.resamples };
  // label and headline first, as buildConfigReport writes them.
  const { label, headline, ...rest } = c;
  return {
    label,
    headline: headline ?? headlineOf(c),
    ...rest,
    far_minus_near: c.far_minus_near ?? farMinusNear(analysed, opts),
    resumed_focus_token_ratio: c.resumed_focus_token_ratio ?? resumedFocusTokenRatio(analysed, opts),
    resolution_by_context: c.resolution_by_context ?? resolutionByContext(analysed),
    interruption_reuse: c.interruption_reuse ?? interruptionReuse(analysed),
    catalogue: c.catalogue ?? catalogue(analysed, new Map(), null),
    sessions,
  };
}

/** Reads a `switch-swe.report/2` json document, completing one written before today's fields. */
export function readReportFile(file: string): Report {
  const parsed = reportReadSchema.safeParse(readJson(file));
  // The first problem is usually the cause (a document of another format fails everywhere after it).
  if (!parsed.success) throw firstProblems(zodProblems(file, parsed.error), 1, "problems");
  const doc = parsed.data;
  return { ...doc, configs: doc.configs.map((c) => completeConfig(c, doc.bootstrap)) };
}
