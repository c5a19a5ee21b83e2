import { agentIdentity, type AgentIdentity } from "../agents/identity.js";
import { harnessInfoSchema } from "../formats/run-config.js";
import type { RunInput } from "./read-run.js";
import type { ConfigReport, SessionEntry } from "./report-schema.js";
import { catalogue, farMinusNear, interruptionReuse, resolutionByContext, resumedFocusTokenRatio } from "./analyses.js";
import { buildFailureSections } from "./failures.js";
import { buildGroupSections } from "./groups.js";
import { headlineOf } from "./headline.js";
import { buildSessionSections } from "./session-entries.js";
import { powerOf, type BootstrapOptions } from "./stats.js";
import { buildWorkload } from "./workload.js";

/** The configurations table's view: the same identity the ATIF export gives the agent. */
function harnessView(id: AgentIdentity): ConfigReport["harness"] {
  return { name: id.harness, version: id.version, model: id.model, effort: id.effort };
}

/** Pairs of the sessions file with neither session run, or one of the two. */
function pairsRun(entries: readonly SessionEntry[]): ConfigReport["pairs_run"] {
  const notRun = new Map<string, number>();
  for (const e of entries) notRun.set(e.pair, (notRun.get(e.pair) ?? 0) + (e.reason === "not run" ? 1 : 0));
  const counts = [...notRun.values()];
  return { pairs: notRun.size, not_run: counts.filter((n) => n === 2).length, partly_run: counts.filter((n) => n === 1).length };
}

/** Everything the report says about one configuration, from what readRun gathered: one builder per section. Pure. */
export function buildConfigReport(input: RunInput, opts: BootstrapOptions = {}): ConfigReport {
  const s = buildSessionSections(input);
  const g = buildGroupSections(input, s.entryById, opts);
  const f = buildFailureSections(input, s.entryById);
  const attributionAvailable = input.tasks !== null;
  const power = powerOf(g.groups);
  const analysed = { groups: g.groups, sessions: s.entries, request_texts: s.requestTexts };
  return {
    label: input.label,
    headline: headlineOf({ label: input.label, run_dir: input.runDir, groups: g.groups, power }),
    run_dir: input.runDir,
    agent: {
      name: input.config.agent.name,
      options: input.config.agent.options ?? null,
      harness: harnessInfoSchema.safeParse(input.config.agent.harness).data ?? null,
    },
    harness: harnessView(agentIdentity(input.config)),
    dataset: {
      name: input.config.dataset?.name ?? input.sessions.dataset.name,
      version: input.config.dataset?.version ?? input.sessions.dataset.version,
      path: input.datasetPath,
      sha256: input.digests.dataset,
    },
    sessions_file: { path: input.sessionsPath, sha256: input.digests.sessions, pairs: input.sessions.pairs.length },
    pairs_run: pairsRun(s.entries),
    submission: input.config.submission === "agent" ? "agent" : "checkout",
    groups: g.groups,
    power,
    stage_attribution: {
      available: attributionAvailable,
      note: attributionAvailable ? null : input.datasetNote,
      groups: g.attribution,
    },
    workload: buildWorkload(input, s.usageById),
    workload_by_locality: { near: buildWorkload(input, s.usageById, "near"), far: buildWorkload(input, s.usageById, "far") },
    far_minus_near: farMinusNear(analysed, opts),
    resumed_focus_token_ratio: resumedFocusTokenRatio(analysed, opts),
    resolution_by_context: resolutionByContext(analysed),
    interruption_reuse: interruptionReuse(analysed),
    catalogue: catalogue(analysed, new Map(input.sessions.pairs.map((p) => [p.focus, p.repo])), input.tasks),
    profile: g.profile,
    failure_categories: f.failure_categories,
    signatures: f.signatures,
    errors: s.errors,
    sessions: s.entries,
    request_texts: s.requestTexts,
    warnings: [...input.warnings, ...s.warnings],
  };
}
