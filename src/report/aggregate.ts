import { harnessInfoSchema } from "../formats/run-config.js";
import type { RunInput } from "./read-run.js";
import type { ConfigReport } from "./report-schema.js";
import { buildGroupSections } from "./groups.js";
import { buildSessionSections } from "./session-entries.js";
import type { BootstrapOptions } from "./stats.js";
import { buildWorkload } from "./workload.js";

/** Everything the report says about one configuration, from what readRun gathered: one builder per section. Pure. */
export function buildConfigReport(input: RunInput, opts: BootstrapOptions = {}): ConfigReport {
  const s = buildSessionSections(input);
  const g = buildGroupSections(input, s.entryById, opts);
  const attributionAvailable = input.tasks !== null;
  return {
    label: input.label,
    run_dir: input.runDir,
    agent: { name: input.config.agent.name, options: input.config.agent.options ?? null, harness: harnessInfoSchema.safeParse(input.config.agent.harness).data ?? null },
    dataset: {
      name: input.config.dataset?.name ?? input.sessions.dataset.name,
      version: input.config.dataset?.version ?? input.sessions.dataset.version,
      path: input.datasetPath,
    },
    sessions_file: { path: input.sessionsPath, sha256: input.config.sessions_file?.sha256 ?? null, pairs: input.sessions.pairs.length },
    groups: g.groups,
    stage_attribution: {
      available: attributionAvailable,
      note: attributionAvailable ? null : input.datasetNote,
      groups: g.attribution,
    },
    workload: buildWorkload(input, s.usageById),
    profile: g.profile,
    errors: s.errors,
    sessions: s.entries,
    request_texts: s.requestTexts,
    warnings: [...input.warnings, ...s.warnings],
  };
}
