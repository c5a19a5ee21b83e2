import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { seededRandom } from "../core/random.js";
import { gitTry } from "../core/git.js";
import { taskById, type LoadedTask } from "../dataset/load.js";
import { touchedPaths } from "../dataset/patch-files.js";
import type { WorkspaceName } from "../formats/sessions.js";
import { validateAgentOptions } from "./options.js";
import type { Agent, AgentContext, AgentFactory, AgentRequest, AgentResult, Conversation, EventSink } from "./types.js";

const oracleOptionsSchema = z
  .object({
    /** Probability of dropping a task's earlier stages when returning to it after other work. */
    forget: z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").default(0),
  })
  .strict();

export type OracleOptions = z.infer<typeof oracleOptionsSchema>;

/** Token counts of the oracle's synthetic model call: fixed, so usage totals are predictable. */
export const oracleUsage = { input_tokens: 1000, output_tokens: 200 } as const;

/** The PRNG draw that decides whether the oracle forgets at a given request (deterministic). */
export function oracleForgets(forget: number, runSeed: number, session: string, index: number): boolean {
  if (forget <= 0) return false;
  return seededRandom("switch-swe/oracle-forget", runSeed, session, index)() < forget;
}

/**
 * Applies the reference stage patches as the requests arrive. With `forget=P` it becomes a synthetic
 * agent with a known resumption gap: on returning to a task after work elsewhere it starts that task
 * over from the base with probability P, keeping only the current stage's patch when it still applies.
 */
export const oracleAgent: AgentFactory<OracleOptions> = {
  name: "oracle",
  description: "applies the reference stage patches (forget=P drops earlier stages on a return)",
  capabilities: { confinable: true, limits: true, harnessSide: true, submission: "checkout" },
  parse: (options) => validateAgentOptions("oracle", oracleOptionsSchema, options),
  create: (options): Agent => ({
    name: "oracle",
    // Acts from the harness side: nothing of it runs in the sandbox or needs a network.
    endpoints: [],
    startConversation: async (ctx) => new OracleConversation(ctx, options),
  }),
};

class OracleConversation implements Conversation {
  private readonly tasks: Map<string, LoadedTask>;
  /** Highest stage applied per workspace. */
  private readonly applied = new Map<WorkspaceName, number>();
  private lastWorkspace: WorkspaceName | null = null;

  constructor(
    private readonly ctx: AgentContext,
    private readonly options: OracleOptions,
  ) {
    this.tasks = taskById(ctx.dataset);
  }

  async send(req: AgentRequest, onEvent: EventSink): Promise<AgentResult> {
    const step = this.ctx.pair.schedules[this.ctx.condition][req.index];
    if (!step || step.workspace !== req.workspace || this.ctx.workspaces[req.workspace] !== req.workspacePath) {
      return { outcome: "agent_error", detail: `oracle: request ${req.index} does not match the schedule` };
    }
    onEvent({ kind: "model_call", model: "oracle", ...oracleUsage });
    const returning = this.lastWorkspace !== null && this.lastWorkspace !== req.workspace;
    this.lastWorkspace = req.workspace;
    if (step.kind === "finalization") {
      if (this.ctx.submissionPath === undefined) {
        onEvent({ kind: "text", text: "Nothing left to do." });
        return { outcome: "yielded" };
      }
      return this.submit(req, onEvent);
    }
    const done = this.applied.get(req.workspace) ?? 0;
    if (done >= step.stage) {
      onEvent({ kind: "text", text: `Stage already applied.` });
      return { outcome: "yielded" };
    }
    const task = this.tasks.get(step.task);
    const patch = task?.stagePatches[step.stage - 1];
    if (!task || patch === undefined) return { outcome: "agent_error", detail: `oracle: no patch for ${step.task} stage ${step.stage}` };
    const cwd = this.ctx.sandbox?.hostPath(req.workspacePath) ?? req.workspacePath;
    const paths = safeTouchedPaths(patch);

    if (returning && done > 0 && oracleForgets(this.options.forget, this.ctx.runSeed, this.ctx.session, req.index)) {
      await this.revert(cwd, req.workspace);
      const r = await gitTry(["apply", "--3way", "--whitespace=nowarn", "-"], { cwd, input: patch });
      if (r.code !== 0) await this.revert(cwd, req.workspace);
      onEvent({
        kind: "tool_call",
        name: "apply_patch",
        args: { stage: step.stage, forgot_earlier_stages: true },
        paths,
        status: r.code === 0 ? "ok" : "failed",
      });
      this.applied.set(req.workspace, step.stage);
      onEvent({
        kind: "text",
        text: r.code === 0 ? "Started over from the base revision." : "Started over; the change did not apply on its own.",
      });
      return { outcome: "yielded" };
    }

    let r = await gitTry(["apply", "--whitespace=nowarn", "-"], { cwd, input: patch });
    if (r.code !== 0) r = await gitTry(["apply", "--3way", "--whitespace=nowarn", "-"], { cwd, input: patch });
    onEvent({
      kind: "tool_call",
      name: "apply_patch",
      args: { stage: step.stage },
      paths,
      status: r.code === 0 ? "ok" : "failed",
      ...(r.code === 0 ? {} : { output: r.stderr.slice(-2000) }),
    });
    this.applied.set(req.workspace, step.stage);
    // After a forgotten return the later stages may no longer apply: the oracle reports it and yields.
    if (r.code !== 0) onEvent({ kind: "text", text: `The change for this request did not apply: ${r.stderr.trim().split("\n")[0] ?? ""}` });
    return { outcome: "yielded" };
  }

  /** `run --submission agent`: the workspace's diff against its base, written where the finalization request asks. */
  private async submit(req: AgentRequest, onEvent: EventSink): Promise<AgentResult> {
    const cwd = this.ctx.sandbox?.hostPath(req.workspacePath) ?? req.workspacePath;
    // The file is at the root of the workspace being finalized (the focus workspace).
    const file = join(cwd, basename(this.ctx.submissionPath!));
    const add = await gitTry(["add", "-A"], { cwd });
    const diff =
      add.code === 0 ? await gitTry(["diff", "--cached", "--binary", "--no-renames", this.ctx.baseCommits[req.workspace]], { cwd }) : add;
    if (diff.code !== 0) return { outcome: "agent_error", detail: `oracle: git diff failed: ${diff.stderr.trim().slice(0, 300)}` };
    writeFileSync(file, diff.stdout);
    onEvent({ kind: "tool_call", name: "write", args: { path: this.ctx.submissionPath! }, paths: [basename(file)], status: "ok" });
    onEvent({ kind: "text", text: "Submitted the final patch." });
    return { outcome: "yielded" };
  }

  private async revert(cwd: string, workspace: WorkspaceName): Promise<void> {
    await gitTry(["reset", "-q", "--hard", this.ctx.baseCommits[workspace]], { cwd });
    await gitTry(["clean", "-q", "-fd"], { cwd });
  }

  async close(): Promise<void> {}
}

function safeTouchedPaths(patch: string): string[] {
  try {
    return touchedPaths(patch);
  } catch {
    return [];
  }
}
