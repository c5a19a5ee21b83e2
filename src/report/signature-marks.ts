import type { ScheduleStep } from "../formats/sessions.js";
import type { SessionSignatures, SignatureMark } from "./report-schema.js";
import { changesByWorkspace, contamination, reversions, type Change, type SignatureInput } from "./signatures.js";

/**
 * The signatures of one session placed on the requests where they happened, for the session viewer
 * (docs/report-format.md, "Session viewer"). Built from the same evidence and helpers as the counts in
 * signatures.ts, so a session shows as many wrong-workspace marks as it counts edits. Pure.
 */

const n = (i: number) => `#${i + 1}`;

function wrongWorkspaceMarks(inp: SignatureInput): SignatureMark[] {
  const t = inp.data?.trajectory;
  if (!t) return [];
  const out: SignatureMark[] = [];
  for (const st of t.states) {
    if (st.index === null) continue;
    const req = t.request_log.get(st.index);
    const own = req?.workspace ?? inp.steps[st.index]?.workspace;
    for (const [w, list] of Object.entries(st.changed)) {
      if (w === own || !list || list.length === 0) continue;
      const owner = inp.pair.workspaces[w as keyof typeof inp.pair.workspaces] ?? "?";
      out.push({
        signature: "wrong_workspace_edits",
        request: st.index,
        workspace: w as SignatureMark["workspace"],
        paths: list.map((c) => c.path),
        detail: `request ${n(st.index)} (${req?.task ?? inp.steps[st.index]?.task ?? "?"} in ${own ?? "?"}) changed ${list.length} file(s) of ${w}, the checkout of ${owner}`,
      });
    }
  }
  return out;
}

function revertedMarks(focusWs: string, focus: readonly Change[]): SignatureMark[] {
  return reversions(focus)
    .filter((c) => c.request?.kind === "stage")
    .map((c) => ({
      signature: "reverted_work" as const,
      request: c.index,
      workspace: focusWs as SignatureMark["workspace"],
      paths: [c.path],
      detail: `${c.path} returned to its content from before request ${n(c.undone)}`,
    }));
}

/** Per file of the artifact: the contaminated lines, marked on the request that last changed the file in the focus checkout. */
function contaminationMarks(inp: SignatureInput, focusWs: string | undefined, focus: readonly Change[]): SignatureMark[] {
  const lines = contamination(inp);
  const artifact = inp.data?.artifact;
  if (!lines || !artifact || lines.length === 0) return [];
  const byFile = new Map<string, typeof lines>();
  for (const c of lines) {
    const f = artifact.files[c.line] ?? "";
    byFile.set(f, [...(byFile.get(f) ?? []), c]);
  }
  return [...byFile].map(([file, list]) => {
    const last = focus.filter((c) => c.path === file).at(-1);
    const from = [...new Set(list.map((c) => c.task))].join(", ");
    const first = artifact.added[list[0]!.line] ?? "";
    return {
      signature: "cross_task_contamination" as const,
      request: last?.index ?? null,
      workspace: (focusWs ?? null) as SignatureMark["workspace"],
      paths: [file],
      detail: `${list.length} added line(s) of ${file} in the artifact carry material of ${from} (first: ${first.length > 120 ? `${first.slice(0, 119)}…` : first})${last ? `; this request last changed the file` : ""}`,
    };
  });
}

/** Per earlier focus stage whose F2P tests do not pass: marked on the request that asked for that stage. */
function lostRequirementMarks(inp: SignatureInput, focusWs: string | undefined): SignatureMark[] {
  const v = inp.data?.verdict;
  const task = inp.tasks?.get(inp.pair.focus);
  if (!v || !v.applied || v.infra_fault || !task) return [];
  const byStage = new Map<number, string[]>();
  for (const [id, stage] of task.f2pStage)
    if (stage < task.lastTestedStage && v.tests[id] !== "passed") byStage.set(stage, [...(byStage.get(stage) ?? []), id]);
  return [...byStage]
    .sort((a, b) => a[0] - b[0])
    .map(([stage, tests]) => {
      const at = inp.steps.findIndex((s: ScheduleStep) => s.task === inp.pair.focus && s.kind === "stage" && s.stage === stage);
      return {
        signature: "lost_requirement" as const,
        request: at >= 0 ? at : null,
        workspace: (focusWs ?? null) as SignatureMark["workspace"],
        paths: [],
        detail: `stage ${stage} asked here; its test(s) ${tests.join(", ")} do not pass in the final artifact`,
      };
    });
}

/** `counted`: the session's signatures as already counted, so that a signature it does not show costs nothing here. */
export function signatureMarks(inp: SignatureInput, counted: SessionSignatures): SignatureMark[] {
  const focusWs = Object.entries(inp.pair.workspaces).find(([, task]) => task === inp.pair.focus)?.[0];
  const t = inp.data?.trajectory;
  const focus = t && focusWs ? (changesByWorkspace(t.states, t.request_log).get(focusWs) ?? []) : [];
  const marks = [
    ...wrongWorkspaceMarks(inp),
    ...(counted.cross_task_contamination ? contaminationMarks(inp, focusWs, focus) : []),
    ...(counted.lost_requirement ? lostRequirementMarks(inp, focusWs) : []),
    ...(focusWs ? revertedMarks(focusWs, focus) : []),
  ];
  return marks.sort((a, b) => (a.request ?? Infinity) - (b.request ?? Infinity));
}
