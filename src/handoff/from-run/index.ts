import { basename } from "node:path";
import { inputError } from "../../core/errors.js";
import { readRunSessions } from "../../rcm/eval/evaluate.js";
import type { ReplaySession } from "../../rcm/eval/replay.js";
import { handoffDatasetSchema, idPattern, type HandoffCase, type HandoffDataset } from "../dataset-schema.js";
import { FROM_RUN_RUBRIC, buildCandidates } from "./case-candidates.js";
import { focusReturns, headline } from "./case-facts.js";
import { fromRunVersion } from "./run-identity.js";
import { focusState, renderHandoff, renderMemory, renderTranscript } from "./case-conditions.js";

export interface FromRunOptions {
  /** Only these sessions (ids of switched sessions). */
  sessions?: readonly string[];
}

function caseId(session: string, at: number): string {
  const id = `${session.replace(/[^A-Za-z0-9._-]+/g, "_")}.r${at}`;
  return idPattern.test(id) ? id : `s${id}`;
}

/** One handoff case per focus return of a switched session. */
export function casesOfSession(s: ReplaySession): HandoffCase[] {
  return focusReturns(s).map((f) => {
    const id = caseId(s.session, f.at);
    const state = focusState(s, f);
    const { candidates, answer } = buildCandidates(f, id);
    return {
      id,
      title: `${s.session}: return to ${f.focusTask} at request ${f.at} (stage ${f.next.stage})`,
      notes: `Built by switch-swe handoff from-run from the recorded session. Right answers: the focus task's requests so far and its next stage; distractors: the other tasks' requests (${[...new Set(f.interruptions.map((x) => x.task))].join(", ")}) and the focus task's own later stages. First request: ${headline(f.delivered[0] ?? f.next)}`,
      conditions: { transcript: renderTranscript(s, f), memory: renderMemory(state), handoff: renderHandoff(state, f) },
      candidates,
      answer,
    };
  });
}

/** A handoff dataset (the reference format) built from the switched sessions of a run directory. */
export function handoffFromRun(runDir: string, opts: FromRunOptions = {}): HandoffDataset {
  let switched = readRunSessions(runDir).sessions.filter((s) => s.condition === "switch");
  if (opts.sessions) {
    const wanted = new Set(opts.sessions);
    for (const id of wanted)
      if (!switched.some((s) => s.session === id)) throw inputError(runDir, "", `no switched session "${id}" with a trajectory`);
    switched = switched.filter((s) => wanted.has(s.session));
  }
  const cases = switched.flatMap(casesOfSession);
  if (cases.length === 0) throw inputError(runDir, "", "no focus return in any switched session: nothing to build cases from");
  return handoffDatasetSchema.parse({
    // The run's fingerprint travels in the version into every score record (`report --handoff` checks it).
    version: fromRunVersion(runDir),
    name: `handoff cases from ${basename(runDir)}`,
    description:
      "Built by switch-swe handoff from-run: one case per focus return of a recorded switched session. transcript = the conversation so far; " +
      "memory = RCM's state record of the focus task (replayed offline); handoff = a structured handoff of the same facts. " +
      "The answer key comes from the dataset's request texts; decisions, evidence and open questions carry no points.",
    rubric: FROM_RUN_RUBRIC,
    cases,
  });
}
