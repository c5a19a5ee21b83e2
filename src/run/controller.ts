import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { gitTry } from "../core/git.js";
import type { Dataset } from "../dataset/load.js";
import { InfraFault } from "../core/infra-fault.js";
import type { Agent, AgentContext, AgentResult, Conversation } from "../agents/types.js";
import { workspaceNames, type Condition, type SessionPair, type WorkspaceName } from "../sessions/schema.js";
import { collectPatch } from "./artifact.js";
import { runFiles } from "../formats/run-layout.js";
import { continuationMessage, finalizationMessage, stageMessage } from "./message-templates.js";
import { nowIso, type ProgressSink } from "./progress-events.js";
import { archivePreviousAttempt, attemptLogDir } from "./session-dir.js";
import type { PatchInfo, SessionSummary } from "../formats/session-summary.js";
import { TrajectoryWriter } from "./trajectory.js";
import type { AgentEvent, RequestOutcome } from "../formats/trajectory.js";
import { addEvent, emptyUsage, usageOf } from "../formats/usage.js";
import { createWorkspaces, removeWorkDir, type SessionWorkspaces } from "./workspaces.js";

export interface AttemptParams {
  runDir: string;
  dataset: Dataset;
  pair: SessionPair;
  condition: Condition;
  session: string;
  attempt: number;
  /** Where this attempt's workspaces are made (see attemptWorkDir). */
  workDir: string;
  agent: Agent;
  runSeed: number;
  requestTimeoutMs: number;
  /** Timeout continuations allowed per session (in total). */
  maxContinuations: number;
  keepWorkspaces: boolean;
  /** Aborted when the run is being stopped (Ctrl-C, SIGTERM). */
  signal: AbortSignal;
  progress: ProgressSink;
}

/** What an attempt produced, without the ledger's list of attempts (the runner adds it). */
export type AttemptSummary = Omit<SessionSummary, "attempts">;

/** Why an attempt stopped early, with what it had done so far. */
export class AttemptAborted extends Error {
  constructor(
    readonly kind: "infra_fault" | "interrupted" | "failed",
    message: string,
    readonly partial: AttemptSummary,
  ) {
    super(message);
    this.name = "AttemptAborted";
  }
}

class RunInterrupted extends Error {}

/** Extra time an adapter gets past its request deadline before the controller gives up on it. */
const adapterGraceMs = 60_000;

/**
 * Runs one attempt of one session: five fresh workspaces, one new conversation, every request of the
 * schedule in order (with timeout continuations), then the patches of all five workspaces.
 * Writes the trajectory as it goes; throws AttemptAborted when the attempt cannot complete.
 */
export async function runSessionAttempt(p: AttemptParams): Promise<AttemptSummary> {
  const started = Date.now();
  const schedule = p.pair.schedules[p.condition];
  const sessionDir = runFiles.sessionDir(p.runDir, p.session);
  const workDir = p.workDir;
  const focusWorkspace = workspaceNames.find((w) => p.pair.workspaces[w] === p.pair.focus);
  if (!focusWorkspace) throw new Error(`${p.session}: no workspace holds the focus task`);
  archivePreviousAttempt(sessionDir);
  const trajectory = new TrajectoryWriter(runFiles.trajectory(p.runDir, p.session));
  const conversationId = randomUUID();

  const usage = emptyUsage();
  const requests = { scheduled: schedule.length, delivered: 0, yielded: 0, timeout: 0, agent_error: 0 };
  let timeouts = 0;
  let continuationsUsed = 0;
  let finalized = false;
  const summary = (status: "finished" | "failed", reason?: string, artifact: PatchInfo | null = null, workspaces: Record<string, PatchInfo> = {}): AttemptSummary => ({
    format: "switch-swe.session/1",
    session: p.session,
    pair: p.pair.id,
    focus: p.pair.focus,
    condition: p.condition,
    status,
    ...(reason === undefined ? {} : { reason }),
    finalized,
    attempt: p.attempt,
    conversation: conversationId,
    started_at: new Date(started).toISOString(),
    ended_at: nowIso(),
    duration_ms: Date.now() - started,
    requests: { ...requests },
    timeouts,
    continuations: continuationsUsed,
    usage: usageOf(usage),
    artifact,
    workspaces,
    focus_workspace: focusWorkspace,
  });

  trajectory.write({
    type: "session_start",
    time: nowIso(),
    session: p.session,
    pair: p.pair.id,
    condition: p.condition,
    attempt: p.attempt,
    agent: p.agent.name,
    conversation: conversationId,
  });
  p.progress({ type: "session_start", time: nowIso(), session: p.session, attempt: p.attempt, requests: schedule.length });

  let conversation: Conversation | null = null;
  try {
    const setupStart = Date.now();
    const ws = await createWorkspaces(p.dataset, p.pair, workDir);
    p.progress({ type: "workspaces_ready", time: nowIso(), session: p.session, attempt: p.attempt, duration_ms: Date.now() - setupStart });
    const ctx: AgentContext = {
      session: p.session,
      pair: p.pair,
      condition: p.condition,
      attempt: p.attempt,
      runSeed: p.runSeed,
      dataset: p.dataset,
      workspaces: ws.paths,
      baseCommits: ws.baseCommits,
      conversationId,
      stateDir: join(workDir, "agent"),
      logDir: join(attemptLogDir(sessionDir, p.attempt), "agent"),
    };
    try {
      conversation = await p.agent.startConversation(ctx);
    } catch (e) {
      throw e instanceof InfraFault ? e : new InfraFault(`agent ${p.agent.name} could not start: ${errorText(e)}`);
    }

    let previous: WorkspaceName | null = null;
    let turn = 0;
    for (const [index, step] of schedule.entries()) {
      const path = ws.paths[step.workspace];
      const role = step.task === p.pair.focus ? "focus" : "interruption";
      const focusReturn = step.kind === "stage" && role === "focus" && previous !== null && previous !== step.workspace;
      let message = step.kind === "stage" ? stageMessage(p.pair.repo, path, step.text) : finalizationMessage(p.pair.repo, path);
      let continuation = false;
      let outcome: RequestOutcome;
      for (;;) {
        if (p.signal.aborted) throw new RunInterrupted();
        trajectory.write({
          type: "request_start",
          time: nowIso(),
          index,
          task: step.task,
          role,
          workspace: step.workspace,
          workspace_path: path,
          kind: step.kind,
          ...(step.kind === "stage" ? { stage: step.stage } : {}),
          focus_return: focusReturn,
          ...(continuation ? { continuation: true } : {}),
          message,
        });
        p.progress({ type: "request_start", time: nowIso(), session: p.session, index, requests: schedule.length, kind: step.kind, workspace: step.workspace, continuation });
        const t0 = Date.now();
        let events = 0;
        const onEvent = (event: AgentEvent) => {
          events++;
          addEvent(usage, event);
          trajectory.write({ type: "agent_event", time: nowIso(), index, event });
        };
        const request = { index, message, workspace: step.workspace, workspacePath: path, continuation, turn, timeoutMs: p.requestTimeoutMs, signal: p.signal };
        const result = await sendGuarded(conversation, request, onEvent, p.signal);
        turn++;
        outcome = result.outcome;
        const duration = Date.now() - t0;
        trajectory.write({
          type: "request_end",
          time: nowIso(),
          index,
          outcome,
          duration_ms: duration,
          ...(result.detail ? { detail: result.detail } : {}),
        });
        p.progress({ type: "request_end", time: nowIso(), session: p.session, index, outcome, duration_ms: duration, ...(result.detail ? { detail: result.detail } : {}) });
        if (p.signal.aborted) throw new RunInterrupted();
        if (outcome === "infra_fault") throw new InfraFault(`request ${index}: ${result.detail ?? "agent infrastructure fault"}`);
        if (!continuation) requests.delivered++;
        requests[outcome]++;
        if (outcome === "agent_error" && turn === 1 && events === 0) {
          p.progress({ type: "warning", time: nowIso(), session: p.session, message: `agent failed on its first request without output: ${result.detail ?? "no detail"}` });
        }
        if (outcome === "timeout") {
          timeouts++;
          if (continuationsUsed < p.maxContinuations) {
            continuationsUsed++;
            continuation = true;
            message = continuationMessage(p.pair.repo, path);
            continue;
          }
        }
        break;
      }
      if (step.kind === "finalization") finalized = outcome === "yielded";
      previous = step.workspace;
    }
    await closeQuietly(conversation);
    conversation = null;

    const patches = await collectAll(p, ws, sessionDir, focusWorkspace);
    for (const [w, why] of Object.entries(patches.damaged)) {
      p.progress({ type: "warning", time: nowIso(), session: p.session, message: `no patch for ${w}: ${why}` });
    }
    const done = { ...summary("finished", undefined, patches.artifact, patches.others), ...(Object.keys(patches.damaged).length > 0 ? { damaged_workspaces: patches.damaged } : {}) };
    trajectory.write({ type: "session_end", time: nowIso(), status: "finished", finalized });
    return done;
  } catch (e) {
    if (conversation) await closeQuietly(conversation);
    const kind = e instanceof RunInterrupted || p.signal.aborted ? "interrupted" : e instanceof InfraFault ? "infra_fault" : "failed";
    const reason = kind === "interrupted" ? "the run was stopped" : errorText(e);
    trajectory.write({ type: "session_end", time: nowIso(), status: "failed", finalized: false, reason: `${kind}: ${reason}` });
    throw new AttemptAborted(kind, reason, summary("failed", `${kind}: ${reason}`));
  } finally {
    if (!p.keepWorkspaces) await removeWorkDir(workDir).catch(() => undefined);
  }
}

/**
 * Collects the five patches. A workspace the agent damaged (deleted, or its repository broken so that
 * the base revision cannot be read) yields no patch: that is the agent's doing and is scored as such.
 * Any other failure is an infrastructure fault.
 */
async function collectAll(p: AttemptParams, ws: SessionWorkspaces, sessionDir: string, focus: WorkspaceName) {
  const others: Partial<Record<WorkspaceName, PatchInfo>> = {};
  const damaged: Partial<Record<WorkspaceName, string>> = {};
  let artifact: PatchInfo | null = null;
  await Promise.all(
    workspaceNames.map(async (w) => {
      const out = w === focus ? runFiles.artifact(p.runDir, p.session) : runFiles.workspacePatch(p.runDir, p.session, w);
      try {
        const c = await collectPatch(ws.paths[w], ws.baseCommits[w], out);
        const info: PatchInfo = { path: relative(sessionDir, out), bytes: c.bytes, sha256: c.sha256, files: c.files };
        if (w === focus) artifact = info;
        else others[w] = info;
      } catch (e) {
        const probe = existsSync(ws.paths[w]) ? await gitTry(["--git-dir", join(ws.paths[w], ".git"), "cat-file", "-e", `${ws.baseCommits[w]}^{tree}`]) : null;
        if (probe !== null && probe.code === 0) throw new InfraFault(`collecting the patch of ${w} failed: ${errorText(e)}`);
        damaged[w] = probe === null ? "the workspace was deleted" : "the workspace's git repository no longer holds the base revision";
      }
    }),
  );
  const sorted = Object.fromEntries(workspaceNames.flatMap((w) => (others[w] ? [[w, others[w]] as const] : [])));
  return { artifact: artifact as PatchInfo | null, others: sorted, damaged };
}

/**
 * Sends one request; an adapter that does not return within its deadline plus a grace period (a bug in
 * the adapter, since every adapter must honour the deadline) fails the attempt instead of hanging the run.
 */
async function sendGuarded(
  conversation: Conversation,
  request: Parameters<Conversation["send"]>[0],
  onEvent: (e: AgentEvent) => void,
  signal: AbortSignal,
): Promise<AgentResult> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const guard = new Promise<never>((_, reject) => {
    const fail = (ms: number, why: string) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => reject(new Error(why)), ms);
    };
    fail(request.timeoutMs + adapterGraceMs, `agent adapter did not return within ${Math.round((request.timeoutMs + adapterGraceMs) / 1000)} s of its request deadline`);
    onAbort = () => fail(10_000, "agent adapter did not stop after the run was interrupted");
    signal.addEventListener("abort", onAbort);
  });
  try {
    return await Promise.race([conversation.send(request, onEvent), guard]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

async function closeQuietly(c: Conversation): Promise<void> {
  try {
    await c.close();
  } catch {
    // closing is best effort; the work dir is removed anyway
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
