import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { gitTry } from "../core/git.js";
import type { Dataset } from "../dataset/load.js";
import { InfraFault } from "../core/infra-fault.js";
import type { Agent, AgentContext, Conversation } from "../agents/types.js";
import { workspaceNames, type Condition, type SessionPair, type WorkspaceName } from "../formats/sessions.js";
import {
  attemptDirs,
  confineAttempt,
  workspaceOwner,
  type AgentConfinement,
  type ConfinedAttempt,
  type Limits,
  type ProcessCgroup,
  type SessionSandbox,
  type WorkspaceEnvironments,
} from "../confine/attempt-confinement.js";
import { collectPatch } from "./artifact.js";
import { withOomNotes } from "./oom-notes.js";
import { runFiles } from "../formats/run-layout.js";
import { deliverSchedule, RunInterrupted, type Delivered } from "./deliver.js";
import { nowIso, type ProgressSink } from "./progress-events.js";
import { archivePreviousAttempt, attemptLogDir } from "./session-dir.js";
import type { PatchInfo, SessionSummary } from "../formats/session-summary.js";
import { TrajectoryWriter } from "./trajectory.js";
import { emptyUsage, usageOf } from "../formats/usage.js";
import { SessionRecorder } from "./recorder.js";
import { WorkspaceEvidence } from "./workspace-evidence.js";
import { createWorkspaces, removeWorkDir, type SessionWorkspaces } from "./workspaces.js";
import { overlayChangedPaths } from "./overlay-changes.js";
import { privateOverlays, writeWorkspacesLog } from "./overlay-workspaces.js";
import { timed } from "./phase-timing.js";
import { submissionFile, type SubmissionMode } from "./message-templates.js";
import { takeSubmission } from "./take-submission.js";
import { prepareWorkspaceEnvironments } from "./task-environments.js";
import { registeredCapabilities } from "../agents/registry.js";

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
  /** `agent`: the artifact is the patch the agent submits at finalization; `checkout` (default): the focus checkout's diff. */
  submission?: SubmissionMode;
  /**
   * Confinement of the agent's processes (null: none): its backend, and its network. `allowed_endpoints`
   * (`--network model`): a private loopback whose only ways out, opened by the backend, lead to these origins.
   */
  sandbox: AgentConfinement | null;
  /** Resource limits of all the session's processes, in one group (null: none). */
  limits: Limits | null;
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

interface AttemptMeta {
  started: number;
  conversationId: string;
  focusWorkspace: AttemptSummary["focus_workspace"];
  usage: ReturnType<typeof emptyUsage>;
  delivered: Delivered;
}

/** session.json of an attempt, finished or failed, from what it has delivered so far. */
function attemptSummary(
  p: AttemptParams,
  m: AttemptMeta,
  r: { status: "finished" | "failed"; reason: string | undefined; artifact: PatchInfo | null; workspaces: Record<string, PatchInfo> },
): AttemptSummary {
  return {
    format: "switch-swe.session/1",
    session: p.session,
    pair: p.pair.id,
    focus: p.pair.focus,
    condition: p.condition,
    status: r.status,
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    finalized: m.delivered.finalized,
    attempt: p.attempt,
    conversation: m.conversationId,
    started_at: new Date(m.started).toISOString(),
    ended_at: nowIso(),
    duration_ms: Date.now() - m.started,
    requests: { ...m.delivered.requests },
    timeouts: m.delivered.timeouts,
    continuations: m.delivered.continuations,
    usage: usageOf(m.usage),
    artifact: r.artifact,
    workspaces: r.workspaces,
    focus_workspace: m.focusWorkspace,
  };
}

/** The attempt's checkouts and the evidence reader over them (closed again if the set-up fails after opening it). */
async function setUpWorkspaces(p: AttemptParams, sessionDir: string, recorder: SessionRecorder) {
  const setupStart = Date.now();
  const ws = await timed("workspace_setup", () =>
    createWorkspaces(p.dataset, p.pair, p.workDir, p.signal, { keep: p.keepWorkspaces, owner: workspaceOwner(p.sandbox) }),
  );
  const evidence = await timed("workspace_setup", () => WorkspaceEvidence.open(ws.paths, ws.layers));
  try {
    recorder.workspacesReady(p.attempt, Date.now() - setupStart, ws.mode);
    writeWorkspacesLog(join(attemptLogDir(sessionDir, p.attempt), "workspaces.log"), ws.mode);
  } catch (e) {
    evidence.close();
    throw e;
  }
  return { ws, evidence };
}

/** The task's environment, built (or found cached) before the agent starts: the same the verifier uses. */
async function taskEnvironmentOf(p: AttemptParams, sessionDir: string) {
  if (!p.sandbox || registeredCapabilities(p.agent.name)?.harnessSide) return undefined;
  return timed("workspace_setup", () =>
    prepareWorkspaceEnvironments(p.dataset, p.pair, join(attemptLogDir(sessionDir, p.attempt), "environment.log")),
  );
}

/**
 * Runs one attempt of one session: five fresh workspaces, one new conversation, every request of the
 * schedule in order (with timeout continuations), then the patches of all five workspaces.
 * Writes the trajectory as it goes; throws AttemptAborted when the attempt cannot complete.
 */
export async function runSessionAttempt(p: AttemptParams): Promise<AttemptSummary> {
  const started = Date.now();
  const schedule = p.pair.schedules[p.condition];
  const sessionDir = runFiles.sessionDir(p.runDir, p.session);
  const focusWorkspace = focusOf(p.pair);
  archivePreviousAttempt(sessionDir);
  const trajectory = new TrajectoryWriter(runFiles.trajectory(p.runDir, p.session));
  const recorder = new SessionRecorder((line) => trajectory.write(line), p.progress, p.session, schedule.length);
  const conversationId = randomUUID();
  const usage = emptyUsage();
  let delivered: Delivered = {
    requests: { scheduled: schedule.length, delivered: 0, yielded: 0, timeout: 0, agent_error: 0 },
    timeouts: 0,
    continuations: 0,
    finalized: false,
  };
  // Read when called: `delivered` grows as the schedule is delivered.
  const summary = (
    status: "finished" | "failed",
    reason?: string,
    artifact: PatchInfo | null = null,
    workspaces: Record<string, PatchInfo> = {},
  ) => attemptSummary(p, { started, conversationId, focusWorkspace, usage, delivered }, { status, reason, artifact, workspaces });

  recorder.sessionStart({ pair: p.pair.id, condition: p.condition, attempt: p.attempt, agent: p.agent.name, conversation: conversationId });
  let conversation: Conversation | null = null;
  let evidence: WorkspaceEvidence | null = null;
  let confined: ConfinedAttempt | null = null;
  try {
    const set = await setUpWorkspaces(p, sessionDir, recorder);
    const ws = set.ws;
    evidence = set.evidence;
    const first = evidence;
    recorder.workspaceState(null, await timed("evidence", () => first.snapshot()));
    const taskEnv = await taskEnvironmentOf(p, sessionDir);
    const attempt = await timed("agent_start", () => confine(p, ws, taskEnv));
    confined = attempt;
    for (const warning of attempt.warnings) recorder.warning(warning);
    const { sandbox, cgroup: group } = attempt;
    conversation = await timed("agent_start", () => startConversation(p, ws, sessionDir, conversationId, sandbox, group));
    const deliverParams = {
      conversation,
      schedule,
      repo: p.pair.repo,
      focus: p.pair.focus,
      paths: sandbox?.insidePaths ?? ws.paths,
      recorder,
      evidence,
      usage,
      submission: p.submission ?? "checkout",
    };
    delivered = await deliverSchedule({
      ...deliverParams,
      requestTimeoutMs: p.requestTimeoutMs,
      maxContinuations: p.maxContinuations,
      signal: p.signal,
    });
    const ended = conversation;
    await timed("cleanup", () => closeQuietly(ended));
    conversation = null;

    const a = await timed("artifact", () => sessionArtifacts(p, ws, sessionDir, focusWorkspace, recorder));
    const done = { ...summary("finished", undefined, a.artifact, a.others), ...a.extra };
    recorder.sessionEnd("finished", delivered.finalized);
    return done;
  } catch (e) {
    if (conversation) await closeQuietly(conversation);
    const kind = e instanceof RunInterrupted || p.signal.aborted ? "interrupted" : e instanceof InfraFault ? "infra_fault" : "failed";
    const reason = kind === "interrupted" ? "the run was stopped" : errorText(e);
    recorder.sessionEnd("failed", false, `${kind}: ${reason}`);
    throw new AttemptAborted(kind, reason, summary("failed", `${kind}: ${reason}`));
  } finally {
    await timed("cleanup", async () => {
      evidence?.close();
      await confined?.close((message) => recorder.warning(message));
      if (!p.keepWorkspaces) await removeWorkDir(p.workDir).catch(() => undefined);
    });
  }
}

/**
 * The artifacts of a finished attempt: the five checkout diffs and, under `--submission agent`, the agent's
 * submission as the artifact with the focus checkout's diff kept beside it; what session.json adds about them.
 */
async function sessionArtifacts(
  p: AttemptParams,
  ws: SessionWorkspaces,
  sessionDir: string,
  focus: WorkspaceName,
  recorder: SessionRecorder,
) {
  const patches = await collectAll(p, ws, sessionDir, focus);
  for (const [w, why] of Object.entries(patches.damaged)) recorder.warning(`no patch for ${w}: ${why}`);
  for (const [w, files] of Object.entries(patches.skipped))
    recorder.warning(
      `${w}: special files (FIFO, socket, device) are not part of its patch: ${files.slice(0, 10).join(", ")}${files.length > 10 ? ` and ${files.length - 10} more` : ""}`,
    );
  const submitted = p.submission === "agent" ? takeSubmission(ws.paths[focus], p.runDir, p.session) : null;
  if (submitted && submitted.record.status !== "submitted")
    recorder.warning(`submission: ${submitted.record.detail ?? submitted.record.status}`);
  const extra = {
    ...(submitted && patches.artifact ? { checkout: patches.artifact } : {}),
    submission: submitted?.record ?? { mode: "checkout" as const },
    ...(Object.keys(patches.damaged).length > 0 ? { damaged_workspaces: patches.damaged } : {}),
    ...(Object.keys(patches.skipped).length > 0 ? { skipped_special_files: patches.skipped } : {}),
  };
  return { artifact: submitted ? submitted.artifact : patches.artifact, others: patches.others, extra };
}

function focusOf(pair: SessionPair): WorkspaceName {
  const w = workspaceNames.find((n) => pair.workspaces[n] === pair.focus);
  if (!w) throw new Error(`${pair.id}: no workspace holds the focus task`);
  return w;
}

/** The attempt's confinement (src/confine/attempt-confinement.ts): its agent's sandbox, network and resource limits. */
async function confine(p: AttemptParams, ws: SessionWorkspaces, taskEnv: WorkspaceEnvironments | undefined): Promise<ConfinedAttempt> {
  // Where workspaces are overlays, the attempt's other bound directories are too: the mount table then names no host path of them.
  if (p.sandbox && ws.mode.kind === "overlay")
    await privateOverlays(
      p.workDir,
      Object.values(attemptDirs(p.workDir)).map((d) => basename(d)),
    );
  return confineAttempt({ agent: p.sandbox, limits: p.limits, repo: p.pair.repo, workspaces: ws.paths, workDir: p.workDir, taskEnv });
}

/** The agent's conversation for this attempt; an agent that cannot start is an infrastructure fault. */
async function startConversation(
  p: AttemptParams,
  ws: SessionWorkspaces,
  sessionDir: string,
  conversationId: string,
  sandbox: SessionSandbox | undefined,
  cgroup: ProcessCgroup | null,
): Promise<Conversation> {
  const ctx: AgentContext = {
    session: p.session,
    pair: p.pair,
    condition: p.condition,
    attempt: p.attempt,
    runSeed: p.runSeed,
    dataset: p.dataset,
    workspaces: sandbox?.insidePaths ?? ws.paths,
    baseCommits: ws.baseCommits,
    conversationId,
    stateDir: attemptDirs(p.workDir).state,
    logDir: join(attemptLogDir(sessionDir, p.attempt), "agent"),
    ...(sandbox ? { sandbox } : {}),
    ...(cgroup ? { limits: cgroup } : {}),
    ...(p.submission === "agent" ? { submissionPath: join((sandbox?.insidePaths ?? ws.paths)[focusOf(p.pair)], submissionFile) } : {}),
  };
  try {
    const conversation = await p.agent.startConversation(ctx);
    return cgroup && p.limits ? withOomNotes(conversation, cgroup, p.limits) : conversation;
  } catch (e) {
    throw e instanceof InfraFault ? e : new InfraFault(`agent ${p.agent.name} could not start: ${errorText(e)}`);
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
  const skipped: Partial<Record<WorkspaceName, string[]>> = {};
  let artifact: PatchInfo | null = null;
  await Promise.all(
    workspaceNames.map(async (w) => {
      const focusOut = p.submission === "agent" ? runFiles.checkoutPatch(p.runDir, p.session) : runFiles.artifact(p.runDir, p.session);
      const out = w === focus ? focusOut : runFiles.workspacePatch(p.runDir, p.session, w);
      // A deleted workspace has no files to collect: not an empty patch, which would read as "nothing done".
      if (!existsSync(ws.paths[w])) {
        damaged[w] = "the workspace was deleted";
        return;
      }
      try {
        const layers = ws.layers[w];
        const c = await collectPatch(
          ws.paths[w],
          ws.baseCommits[w],
          out,
          ws.objectStores[w],
          layers ? overlayChangedPaths(layers) : undefined,
        );
        const info: PatchInfo = { path: relative(sessionDir, out), bytes: c.bytes, sha256: c.sha256, files: c.files };
        if (c.skipped.length > 0) skipped[w] = c.skipped;
        if (w === focus) artifact = info;
        else others[w] = info;
      } catch (e) {
        // The agent's .git is never read: the base comes from the harness-owned store.
        const store = await gitTry(["--git-dir", dirname(ws.objectStores[w]), "cat-file", "-e", `${ws.baseCommits[w]}^{tree}`]);
        if (store.code !== 0)
          throw new InfraFault(`collecting the patch of ${w} failed: the repository cache lost the base revision: ${errorText(e)}`);
        damaged[w] = existsSync(ws.paths[w])
          ? `its files could not be collected: ${errorText(e).slice(0, 300)}`
          : "the workspace was deleted";
      }
    }),
  );
  const sorted = Object.fromEntries(workspaceNames.flatMap((w) => (others[w] ? [[w, others[w]] as const] : [])));
  return { artifact: artifact as PatchInfo | null, others: sorted, damaged, skipped };
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
