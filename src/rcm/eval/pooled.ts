import { share, type EvalReport, type EvalVariant } from "./evaluate.js";

/** One run of `rcm eval RUN...` and the repository its dataset is of. */
export interface RunEval {
  run_dir: string;
  /** The run's dataset name (run.json `dataset.name`), else the run directory: rows are per repository. */
  repository: string;
  report: EvalReport;
}

/** Figures of one variant (Workspace: lines shown or hidden) over several sessions, pooled request by request. */
export interface PooledRow {
  repository: string;
  workspace_lines: boolean;
  runs: number;
  sessions: number;
  requests: number;
  routed_correctly: number;
  /** Of the requests the router decided (not deferred). */
  routing_accuracy: number;
  /** Requests below the threshold: deferred to the auxiliary model where one is configured, here (offline) not routed. */
  deferred: number;
  /** deferred / requests. */
  deferred_share: number;
  /** Routed right over every request, deferred ones counted as not routed. */
  accuracy_all_requests: number;
  invariant_violations: number;
  /** RCM context tokens / the uninterrupted sessions' at the same focus stages; null without uninterrupted sessions. */
  uninterrupted_ratio: number | null;
  context_ratio: number;
}

export interface PooledEval {
  mode: EvalReport["mode"];
  threshold: number;
  runs: RunEval[];
  /** One row per repository and variant, repositories in name order. */
  by_repository: PooledRow[];
  /** Every run together, per variant. */
  pooled: PooledRow[];
}

/** Sums variants from session figures, so a pooled ratio weighs each step by its tokens, as one run's does. */
function row(repository: string, runs: number, variants: readonly EvalVariant[]): PooledRow {
  const per = variants.flatMap((v) => v.per_session);
  const sum = (
    k:
      | "requests"
      | "routed_correctly"
      | "abstained"
      | "invariant_violations"
      | "matched_rcm_tokens"
      | "uninterrupted_tokens"
      | "rcm_tokens"
      | "full_tokens",
  ) => per.reduce((n, p) => n + p[k], 0);
  const requests = sum("requests");
  const deferred = sum("abstained");
  return {
    repository,
    workspace_lines: variants[0]!.workspace_lines,
    runs,
    sessions: per.length,
    requests,
    routed_correctly: sum("routed_correctly"),
    routing_accuracy: share(sum("routed_correctly"), requests - deferred),
    deferred,
    deferred_share: share(deferred, requests),
    accuracy_all_requests: share(sum("routed_correctly"), requests),
    invariant_violations: sum("invariant_violations"),
    uninterrupted_ratio: sum("uninterrupted_tokens") === 0 ? null : share(sum("matched_rcm_tokens"), sum("uninterrupted_tokens")),
    context_ratio: share(sum("rcm_tokens"), sum("full_tokens")),
  };
}

/** Per repository and pooled figures of several runs' reports (all measured with the same mode, threshold and variants). */
export function poolRunEvals(runs: readonly RunEval[]): PooledEval {
  const first = runs[0]!.report;
  const variants = first.variants.map((v) => v.workspace_lines);
  const pick = (rs: readonly RunEval[], shown: boolean) => rs.map((r) => r.report.variants.find((v) => v.workspace_lines === shown)!);
  const repos = [...new Set(runs.map((r) => r.repository))].sort();
  return {
    mode: first.mode,
    threshold: first.threshold,
    runs: [...runs],
    by_repository: repos.flatMap((repo) => {
      const rs = runs.filter((r) => r.repository === repo);
      return variants.map((shown) => row(repo, rs.length, pick(rs, shown)));
    }),
    pooled: variants.map((shown) => row("pooled", runs.length, pick(runs, shown))),
  };
}
