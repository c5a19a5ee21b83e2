import type { Dataset } from "../../../src/dataset/load.js";
import { touchedPaths } from "../../../src/dataset/patch-files.js";
import type { Condition, SessionPair, SessionsFile } from "../../../src/formats/sessions.js";
import type { ReplaySession, ReplayStep } from "../../../src/rcm/eval/replay.js";
import { finalizationMessage, stageMessage } from "../../../src/run/message-templates.js";

/**
 * The replay sessions an oracle run of a sessions file records (`run --agent oracle`, then what
 * `rcm eval` reads from its trajectories), made without running it: each stage request is answered by
 * one `apply_patch` call on the files of that stage's patch, the finalization by a short text.
 */
export function oracleReplaySessions(dataset: Dataset, file: SessionsFile): { switched: ReplaySession[]; base: ReplaySession[] } {
  const tasks = new Map(dataset.tasks.map((t) => [t.id, t]));
  const session = (pair: SessionPair, condition: Condition): ReplaySession => {
    const workspaceOf = new Map(Object.entries(pair.workspaces).map(([name, task]) => [task, name]));
    const steps = pair.schedules[condition].map((step, index): ReplayStep => {
      const task = tasks.get(step.task)!;
      const path = `/workspace/${task.repo}/${workspaceOf.get(step.task) ?? "w00"}`;
      const id = `r${index}`;
      const group = { id, userMessageId: id, userText: "", actions: [] };
      if (step.kind === "finalization") {
        return {
          group: { ...group, userText: finalizationMessage(task.repo, path) },
          task: step.task,
          role: "focus",
          stage: null,
          focusReturn: false,
          continuation: false,
          actions: [{ kind: "assistant", text: "Nothing left to do.", messageId: `${id}#0` }],
        };
      }
      const paths = touchedPaths(task.stagePatches[step.stage - 1]!);
      return {
        group: { ...group, userText: stageMessage(task.repo, path, step.text) },
        task: step.task,
        role: step.task === pair.focus ? "focus" : "interruption",
        stage: step.stage,
        // As the controller marks it: a focus stage right after another task's request.
        focusReturn: step.task === pair.focus && index > 0 && pair.schedules[condition][index - 1]!.task !== pair.focus,
        continuation: false,
        actions: [{ kind: "tool", tool: "apply_patch", args: { stage: step.stage }, paths, status: "ok", text: "", messageId: `${id}#0` }],
      };
    });
    return { session: `${pair.id}.${condition}`, pair: pair.id, condition, steps };
  };
  return { switched: file.pairs.map((p) => session(p, "switch")), base: file.pairs.map((p) => session(p, "base")) };
}
