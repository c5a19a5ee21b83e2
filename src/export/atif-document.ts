import { ATIF_SCHEMA_VERSION, type AtifFinalMetrics, type AtifStep, type AtifTrajectory } from "../formats/atif.js";
import type { TrajectoryLine } from "../formats/trajectory.js";
import { StepBuilder } from "./atif-steps.js";
import type { AtifVerdict } from "./atif-verdict.js";

/** What run.json says about the agent, as the export needs it. */
export interface AgentFacts {
  name: string;
  /** The CLI's own version (real CLI agents), switch-swe's for its built-in agents, else "unknown". */
  version: string;
  /** The model the harness was configured with (null: its default, or no harness). */
  model: string | null;
  extra: Record<string, unknown>;
}

export interface SessionInput {
  session: string;
  /** The trajectory file, relative to the run directory (for the notes). */
  source: string;
  lines: TrajectoryLine[];
  /** The session's verdict (null: not verified). */
  verdict: AtifVerdict | null;
}

/** The lines of the last attempt: a file that holds several attempts (older runs) is scored on its last. */
function lastAttempt(lines: TrajectoryLine[]): TrajectoryLine[] {
  let start = 0;
  lines.forEach((l, i) => {
    if (l.type === "session_start") start = i;
  });
  return lines.slice(start);
}

/** The model most agent steps name, for `agent.model_name` when the harness did not record one. */
function usualModel(steps: AtifStep[]): string | undefined {
  const counts = new Map<string, number>();
  for (const s of steps)
    if (s.model_name && s.metrics && !(s.extra?.switch_swe as { auxiliary?: boolean } | undefined)?.auxiliary)
      counts.set(s.model_name, (counts.get(s.model_name) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

/** Totals over the steps; `extra.tokens` = prompt + completion = switch-swe's token rule (what session.json and the report sum). */
export function finalMetricsOf(steps: AtifStep[]): AtifFinalMetrics {
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let cost: number | null = null;
  let modelCalls = 0;
  let auxiliary = 0;
  let toolCalls = 0;
  for (const s of steps) {
    toolCalls += s.tool_calls?.length ?? 0;
    const m = s.metrics;
    if (!m) continue;
    modelCalls++;
    if ((s.extra?.switch_swe as { auxiliary?: boolean } | undefined)?.auxiliary) auxiliary++;
    prompt += m.prompt_tokens ?? 0;
    completion += m.completion_tokens ?? 0;
    cached += m.cached_tokens ?? 0;
    if (m.cost_usd !== undefined) cost = (cost ?? 0) + m.cost_usd;
  }
  return {
    total_prompt_tokens: prompt,
    total_completion_tokens: completion,
    total_cached_tokens: cached,
    ...(cost !== null ? { total_cost_usd: cost } : {}),
    total_steps: steps.length,
    extra: { tokens: prompt + completion, model_calls: modelCalls, auxiliary_model_calls: auxiliary, tool_calls: toolCalls },
  };
}

/** One session's ATIF document (not yet validated: the caller checks it against the schema before writing). */
export function sessionDocument(agent: AgentFacts, run: Record<string, unknown>, input: SessionInput): AtifTrajectory {
  const lines = lastAttempt(input.lines);
  const builder = new StepBuilder();
  for (const line of lines) builder.add(line);
  builder.close();
  const steps = builder.steps;
  const start = lines.find((l) => l.type === "session_start");
  const end = [...lines].reverse().find((l) => l.type === "session_end");
  const model = agent.model ?? usualModel(steps);
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    ...(start?.conversation ? { session_id: start.conversation } : {}),
    // Unique across runs: the run's id (its directory's name and run.json digest), then the session.
    trajectory_id: `${String(run.id)}/${input.session}`,
    agent: { name: agent.name, version: agent.version, ...(model ? { model_name: model } : {}), extra: agent.extra },
    steps,
    notes:
      `Exported by switch-swe from ${input.source} (the session's last attempt). Steps: user = a request as the agent ` +
      `received it (extra.switch_swe.boundary marks where a request starts); agent = one model call the agent reported, ` +
      `with the text and tool calls it reported after it; system = what the harness did. Every step's ` +
      `extra.switch_swe.request names its request: index in the schedule, task, role (focus, or the n-th interruption), workspace.`,
    final_metrics: finalMetricsOf(steps),
    extra: {
      switch_swe: {
        run,
        session: input.session,
        ...(start ? { pair: start.pair, condition: start.condition, attempt: start.attempt } : {}),
        ...(end ? { status: end.status, finalized: end.finalized } : { status: null }),
        requests: builder.requests,
        verdict: input.verdict,
      },
    },
  };
}
