import type { SessionsFile } from "../formats/sessions.js";
import { sessionId } from "../formats/sessions.js";
import { median } from "./stats.js";

/** What depth needs to know of a task's stages: which have an F2P test of their own, which are authored. */
export interface StageFacts {
  tested: boolean[];
  authored: boolean[];
}

export interface TestedDepth {
  /** Focus stages with at least one F2P test of their own: the median over sessions, and per session. */
  tested_focus_stages: { median: number; per_session: Record<string, number> };
  /** Of all focus stages scheduled, the share that are benchmark-authored (0..1). */
  authored_stage_share: number;
}

/**
 * Depth counted honestly: a focus stage without a test of its own is scheduled but never scored, and
 * an authored stage is ours, not upstream's. `facts` by task id; a focus task it lacks counts as untested.
 */
export function testedDepth(file: Pick<SessionsFile, "pairs">, facts: ReadonlyMap<string, StageFacts>): TestedDepth {
  const per: Record<string, number> = {};
  let stages = 0;
  let authored = 0;
  for (const p of file.pairs) {
    const f = facts.get(p.focus);
    for (const condition of ["base", "switch"] as const) {
      const focus = p.schedules[condition].flatMap((s) => (s.kind === "stage" && s.task === p.focus ? [s.stage] : []));
      per[sessionId(p.id, condition)] = focus.filter((k) => f?.tested[k - 1] === true).length;
      stages += focus.length;
      authored += focus.filter((k) => f?.authored[k - 1] === true).length;
    }
  }
  return {
    tested_focus_stages: { median: median(Object.values(per)), per_session: per },
    authored_stage_share: stages === 0 ? 0 : Math.round((authored / stages) * 1000) / 1000,
  };
}
