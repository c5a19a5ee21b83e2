import { isWritingTool, type Action, type Group } from "./history.js";
import { extractRefs, normalizePath } from "./refs.js";
import { toolPaths } from "./router-index.js";
import type { StateItem, TaskState } from "./state-record.js";

/** Bounds of the record: the newest items of each section are kept. */
export const stateLimits = {
  constraints: 6,
  completed: 6,
  pending: 4,
  files: 12,
  symbols: 12,
  uncertainties: 4,
  asked: 8,
  itemChars: 140,
} as const;

export const constraintWords =
  /\b(must|must not|should|shouldn't|never|always|do not|don't|only|ensure|make sure|keep|leave|unchanged|required|requires|without|instead of|stay(s)?)\b/i;
const completionClaim =
  /\b(added|updated|implemented|fixed|created|changed|wrote|written|removed|renamed|refactored|completed|finished|done)\b/i;
const testsPassClaim = /\btests?\b[^.]*\b(pass(es|ed)?|green|succeed(s|ed)?)\b/i;
const doubt = /\?\s*$|\b(not sure|unclear|unsure|cannot|can't|could not|couldn't|unable|TODO|blocked|assum(e|ed|ing))\b/i;
const passingRun = /\b\d+ passed\b|\ball tests pass|\bOK\b/;
const failingRun = /\b\d+ failed\b|\bFAILED\b|\bError\b/;

export function clip(text: string, max: number = stateLimits.itemChars): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The request without the harness header lines. */
export function requestBody(userText: string): string {
  return userText.replace(/^(Repository|Workspace):.*$/gm, "").trim();
}

export function sentences(text: string): string[] {
  return text
    .replace(/`[^`\n]*`/g, (m) => m.replace(/\./g, "\u2024"))
    .split(/(?<=[.!?])\s+(?=[A-Z(`"'])|\n+/)
    .map((s) => s.replace(/\u2024/g, ".").trim())
    .filter((s) => s.length > 0);
}

export function pushBounded(list: StateItem[], item: StateItem, max: number): void {
  const same = list.findIndex((i) => i.text === item.text);
  if (same >= 0) list.splice(same, 1);
  list.push(item);
  while (list.length > max) list.shift();
}

export function actionSource(group: Group, a: Action, k: number): string {
  return a.messageId ?? `${group.id}#${k}`;
}

/** The assistant's sentences: completion claims (kept when they name tests or files no tool changed) and doubts; its first claim. */
function foldAssistantText(
  s: TaskState,
  text: string,
  at: { source: string; request: number },
  changed: readonly string[],
): StateItem | null {
  let first: StateItem | null = null;
  for (const sentence of sentences(text)) {
    const mentioned = [...extractRefs(sentence, s.workspace).paths];
    if (testsPassClaim.test(sentence) || completionClaim.test(sentence)) {
      const item: StateItem = {
        text: clip(sentence),
        kind: "claim",
        source: at.source,
        request: at.request,
        ...(mentioned.length ? { paths: mentioned } : {}),
        ...(testsPassClaim.test(sentence) ? { tests: true } : {}),
      };
      first ??= item;
      // A claim about files a tool of this group already changed adds nothing to the observation.
      const subsumed = mentioned.length > 0 && mentioned.every((p) => changed.some((c) => c === p || c.endsWith(`/${p}`)));
      if ((item.tests || mentioned.length > 0) && !subsumed) pushBounded(s.completed, item, stateLimits.completed);
    } else if (doubt.test(sentence)) {
      pushBounded(
        s.uncertainties,
        { text: clip(sentence), kind: "claim", source: at.source, request: at.request, ...(mentioned.length ? { paths: mentioned } : {}) },
        stateLimits.uncertainties,
      );
    }
  }
  return first;
}

/** A request whose group changed files or claimed completion leaves pending for completed. */
function completeRequest(
  s: TaskState,
  r: { pendingItem: StateItem; request: number; changed: string[]; changedSource: string | null; claimed: StateItem | null },
): void {
  const { pendingItem, request, changed, changedSource, claimed } = r;
  const done = s.pending.indexOf(pendingItem);
  if (changed.length > 0 && changedSource !== null) {
    if (done >= 0) s.pending.splice(done, 1);
    pushBounded(
      s.completed,
      {
        text: clip(`request ${request}: changed ${changed.join(", ")}`),
        kind: "observation",
        source: changedSource,
        request,
        paths: changed,
      },
      stateLimits.completed,
    );
  } else if (claimed !== null) {
    if (done >= 0) s.pending.splice(done, 1);
    const c: StateItem = claimed;
    pushBounded(s.completed, { ...c, text: clip(`request ${request}: ${c.text}`) }, stateLimits.completed);
  }
}

/**
 * Folds one completed group into its task's record, deterministically (no model):
 * the request adds the goal (first request), constraints, named files and symbols and a pending item;
 * successful writing tools add edited files and complete the request (observation); the assistant's
 * statements of completion are claims until a later tool result supports them; failed tools and
 * doubtful statements are open uncertainties until a later success on the same files.
 */
export function foldGroup(s: TaskState, group: Group): void {
  if (s.covered.includes(group.id)) return;
  const request = ++s.requests;
  const body = requestBody(group.userText);
  const src = group.userMessageId;
  const req = (text: string, extra: Partial<StateItem> = {}): StateItem => ({
    text: clip(text),
    kind: "requirement",
    source: src,
    request,
    ...extra,
  });
  const parts = sentences(body);
  const first = parts[0] ?? body;
  if (s.goal === null && body !== "") s.goal = req(first);
  if (body !== "") pushBounded(s.asked, req(first), stateLimits.asked);
  for (const sentence of parts.slice(s.goal?.request === request ? 1 : 0)) {
    if (constraintWords.test(sentence)) pushBounded(s.constraints, req(sentence), stateLimits.constraints);
  }
  const refs = extractRefs(group.userText, s.workspace);
  for (const p of refs.paths) if (/\.\w+$/.test(p)) addFile(s, p, "named", req(p));
  for (const sym of refs.symbols) pushBounded(s.symbols, req(sym), stateLimits.symbols);
  const pendingItem = req(`request ${request}: ${first}`);
  pushBounded(s.pending, pendingItem, stateLimits.pending);

  const changed: string[] = [];
  let changedSource: string | null = null;
  let claimed: StateItem | null = null;
  group.actions.forEach((a, k) => {
    const source = actionSource(group, a, k);
    if (a.kind === "tool") {
      const paths = toolPaths(a.paths, a.args).map((p) => normalizePath(p, s.workspace));
      if (a.status === "error") {
        const why = a.text.split("\n").find((l) => l.trim() !== "") ?? "failed";
        pushBounded(
          s.uncertainties,
          {
            text: clip(`${a.tool ?? "tool"}${paths.length ? ` on ${paths.join(", ")}` : ""} failed: ${why}`),
            kind: "observation",
            source,
            request,
            paths,
          },
          stateLimits.uncertainties,
        );
        return;
      }
      supportClaims(s, paths, a, source);
      resolveUncertainties(s, paths);
      if (isWritingTool(a.tool)) {
        for (const p of paths) {
          addFile(s, p, "edited", { text: p, kind: "observation", source, request });
          if (!changed.includes(p)) changed.push(p);
        }
        changedSource ??= source;
      } else if (paths.length > 0 && /^(read|view|cat|open)/i.test(a.tool ?? "")) {
        for (const p of paths) addFile(s, p, "read", { text: p, kind: "observation", source, request });
      }
      return;
    }
    // Every action is folded; the request's first claim is kept.
    const first = foldAssistantText(s, a.text, { source, request }, changed);
    claimed ??= first;
  });

  completeRequest(s, { pendingItem, request, changed, changedSource, claimed });
  s.covered.push(group.id);
}

export function addFile(s: TaskState, path: string, how: "named" | "read" | "edited", item: StateItem): void {
  const existing = s.files.find((f) => f.text.startsWith(`${path} (`));
  // An edit outranks a read, which outranks a mention; the strongest evidence is kept.
  const rank = { named: 0, read: 1, edited: 2 } as const;
  if (existing) {
    const was = (/\((\w+)\)$/.exec(existing.text)?.[1] ?? "named") as keyof typeof rank;
    if (rank[was] >= rank[how]) return;
    s.files.splice(s.files.indexOf(existing), 1);
  }
  pushBounded(s.files, { ...item, text: `${path} (${how})` }, stateLimits.files);
}

/** A claim becomes an observation when a later successful tool call touches its files or shows passing tests. */
function supportClaims(s: TaskState, paths: string[], a: Action, source: string): void {
  const passing = a.tool !== undefined && /bash|shell|run|test/i.test(a.tool) && passingRun.test(a.text) && !failingRun.test(a.text);
  for (const list of [s.completed, s.uncertainties]) {
    for (const item of list) {
      if (item.kind !== "claim" || item.source === source) continue;
      const byPath = item.paths?.some((p) => paths.some((q) => q === p || q.endsWith(`/${p}`) || p.endsWith(`/${q}`))) ?? false;
      if (byPath || (item.tests === true && passing)) {
        item.kind = "observation";
        item.supported_by = source;
      }
    }
  }
}

/** A failure on a file is no longer open once a later call on that file succeeds. */
function resolveUncertainties(s: TaskState, paths: string[]): void {
  if (paths.length === 0) return;
  for (let i = s.uncertainties.length - 1; i >= 0; i--) {
    const u = s.uncertainties[i]!;
    if (u.kind === "observation" && u.paths?.some((p) => paths.includes(p))) s.uncertainties.splice(i, 1);
  }
}
