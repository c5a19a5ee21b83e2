import { sessionId, type Condition, type SessionPair } from "../formats/sessions.js";
import type { RunInput } from "./read-run.js";
import {
  groupNames,
  type Attribution,
  type ByCondition,
  type ByGroup,
  type GroupName,
  type GroupResult,
  type ProfileEntry,
  type SessionEntry,
} from "./report-schema.js";
import { bootstrapGapCI, discordant, gapOf, mcnemarExact, summarize, type BootstrapOptions, type Pair } from "./stats.js";

const conditions: readonly Condition[] = ["base", "switch"];

function emptyAttribution(): Attribution {
  return {
    unresolved: 0,
    attributed: 0,
    excluded: { not_scored: 0, infra_fault: 0, not_applied: 0, unmapped: 0 },
    earlier_stage_failure: 0,
    earlier_stage_share: null,
    last_stage_only: 0,
    p2p_only: 0,
    failed_stages: {},
  };
}

function inGroup(pair: SessionPair, g: GroupName): boolean {
  return g === "overall" || pair.locality === g;
}

function groupResult(pairs: readonly Pair[], opts: BootstrapOptions): GroupResult {
  const { uninterrupted, switched, gap } = gapOf(pairs);
  const d = discordant(pairs);
  return {
    n: pairs.length,
    resolved: { uninterrupted: pairs.filter((p) => p[0]).length, switched: pairs.filter((p) => p[1]).length },
    uninterrupted,
    switched,
    gap,
    ci95: bootstrapGapCI(pairs, opts),
    mcnemar_p: pairs.length === 0 ? null : mcnemarExact(d.base_only, d.switch_only),
    discordant: d,
  };
}

/** Stage attribution of one condition's unresolved sessions (docs/report-format.md). Pure. */
function attributeStages(list: readonly SessionEntry[], input: RunInput): Attribution {
  const a = emptyAttribution();
  for (const s of list) {
    if (s.status === "resolved") continue;
    a.unresolved++;
    if (s.reason === "infra fault") a.excluded.infra_fault++;
    else if (s.reason === "did not apply") a.excluded.not_applied++;
    else if (s.reason !== "tests failed") a.excluded.not_scored++;
    else if (s.failed_stages === null) a.excluded.unmapped++;
    else {
      a.attributed++;
      const last = input.tasks?.get(s.focus)?.lastTestedStage ?? 0;
      for (const st of s.failed_stages) a.failed_stages[String(st)] = (a.failed_stages[String(st)] ?? 0) + 1;
      if (s.failed_stages.some((st) => st < last)) a.earlier_stage_failure++;
      else if (s.failed_stages.length > 0) a.last_stage_only++;
      else a.p2p_only++;
    }
  }
  a.earlier_stage_share = a.attributed === 0 ? null : (100 * a.earlier_stage_failure) / a.attributed;
  return a;
}

export interface GroupSections {
  groups: ByGroup<GroupResult>;
  attribution: ByGroup<ByCondition<Attribution>>;
  profile: ByGroup<ByCondition<ProfileEntry>>;
}

/** Resolution and gap, stage attribution and schedule profile, overall and per locality. Pure. */
export function buildGroupSections(input: RunInput, entryById: ReadonlyMap<string, SessionEntry>, opts: BootstrapOptions): GroupSections {
  const groups = {} as ByGroup<GroupResult>;
  const attribution = {} as ByGroup<ByCondition<Attribution>>;
  const profile = {} as ByGroup<ByCondition<ProfileEntry>>;
  for (const g of groupNames) {
    const pairsInGroup = input.sessions.pairs.filter((p) => inGroup(p, g));
    const entries = (c: Condition) => pairsInGroup.map((p) => entryById.get(sessionId(p.id, c))!);
    const resolved = (c: Condition) => entries(c).map((s) => s.status === "resolved");
    const base = resolved("base");
    const sw = resolved("switch");
    groups[g] = groupResult(
      base.map((b, i) => [b, sw[i]!]),
      opts,
    );
    attribution[g] = { base: attributeStages(entries("base"), input), switch: attributeStages(entries("switch"), input) };
    profile[g] = {} as ByCondition<ProfileEntry>;
    for (const c of conditions) {
      const list = entries(c);
      profile[g][c] = {
        sessions: list.length,
        repositories: new Set(pairsInGroup.map((p) => p.repo)).size,
        requests: summarize(list.map((s) => s.requests.scheduled)),
        workspace_switches: summarize(list.map((s) => s.workspace_switches)),
        focus_returns: summarize(list.map((s) => s.focus_returns)),
      };
    }
  }
  return { groups, attribution, profile };
}
