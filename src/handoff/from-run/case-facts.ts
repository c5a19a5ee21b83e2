import type { ReplaySession, ReplayStep } from "../../rcm/eval/replay.js";
import { clip, constraintWords, requestBody, sentences } from "../../rcm/state-updater.js";

/** What the dataset's request texts say at one focus return of a switched session. */
export interface FocusReturnFacts {
  session: string;
  /** Index of the returning request in the session's steps. */
  at: number;
  focusTask: string;
  /** The focus task's workspace path, as the returning request names it (null without a header). */
  workspace: string | null;
  /** Focus requests delivered before the return, in order. */
  delivered: ReplayStep[];
  /** The returning focus request (the next stage). */
  next: ReplayStep;
  /** Focus requests after the return. */
  future: ReplayStep[];
  /** Requests of other tasks delivered before the return, in order. */
  interruptions: ReplayStep[];
}

/** Every resumed focus step (focus return, not a continuation, not the finalization) of a switched session. */
export function focusReturns(s: ReplaySession): FocusReturnFacts[] {
  const out: FocusReturnFacts[] = [];
  const stages = s.steps.filter((st) => !st.continuation && st.stage !== null);
  s.steps.forEach((step, at) => {
    if (step.role !== "focus" || !step.focusReturn || step.continuation || step.stage === null) return;
    const before = stages.filter((st) => s.steps.indexOf(st) < at);
    out.push({
      session: s.session,
      at,
      focusTask: step.task,
      workspace: /^Workspace:[ \t]*(\S.*?)[ \t]*$/m.exec(step.group.userText)?.[1] ?? null,
      delivered: before.filter((st) => st.task === step.task),
      next: step,
      future: stages.filter((st) => st.task === step.task && s.steps.indexOf(st) > at),
      interruptions: before.filter((st) => st.task !== step.task),
    });
  });
  return out;
}

/** The first sentence of a request: what it asks for, in the requester's words. */
export function headline(step: ReplayStep): string {
  const body = requestBody(step.group.userText);
  return clip(sentences(body)[0] ?? body, 220);
}

/** Sentences of a request that state a constraint ("must", "keep", "never", …), after its headline. */
export function constraintSentences(step: ReplayStep): string[] {
  return sentences(requestBody(step.group.userText))
    .slice(1)
    .filter((x) => constraintWords.test(x) && x.length >= 20)
    .map((x) => clip(x, 220));
}

/** The first stage of each distinct task among some requests. */
export function firstRequests(steps: readonly ReplayStep[]): ReplayStep[] {
  const seen = new Set<string>();
  return steps.filter((st) => !seen.has(st.task) && seen.add(st.task) !== undefined);
}
