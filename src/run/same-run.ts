import { inputError } from "../core/errors.js";
import type { RunConfig } from "../formats/run-config.js";

const stable = (v: unknown) =>
  JSON.stringify(v, (_, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x,
  );

/**
 * On --resume the new command must describe the same run: everything that changes what a session does
 * or how it is reported must be equal. The first difference is bad input naming the field.
 */
export function assertSameRun(file: string, existing: RunConfig, wanted: RunConfig): void {
  const fields: Array<[string, string, unknown, unknown]> = [
    ["dataset", "--dataset", `${existing.dataset.name}@${existing.dataset.version}`, `${wanted.dataset.name}@${wanted.dataset.version}`],
    ["sessions_file.sha256", "--sessions", existing.sessions_file.sha256, wanted.sessions_file.sha256],
    ["agent.name", "--agent", existing.agent.name, wanted.agent.name],
    ["agent.options", "--agent-opt", existing.agent.options, wanted.agent.options],
    ["seed", "--seed", existing.seed, wanted.seed],
    ["label", "--label", existing.label, wanted.label],
    ["condition", "--condition", existing.condition, wanted.condition],
    ["session_filter", "--session", existing.session_filter, wanted.session_filter],
    ["rcm", "--rcm", existing.rcm?.mode ?? "none", wanted.rcm?.mode ?? "none"],
    ["rcm.state", "--rcm-state", existing.rcm?.state ?? "extractive", wanted.rcm?.state ?? "extractive"],
    ["request_timeout_s", "--request-timeout", existing.request_timeout_s, wanted.request_timeout_s],
    ["submission", "--submission", existing.submission ?? "checkout", wanted.submission ?? "checkout"],
    // Confinement is part of what the verdicts rest on: a resumed run is confined as run.json says.
    ...(existing.sandbox
      ? [
          ["sandbox.mode", "--sandbox", existing.sandbox.mode, wanted.sandbox?.mode] as [string, string, unknown, unknown],
          [
            "sandbox.verifier",
            "--sandbox",
            existing.sandbox.verifier ?? existing.sandbox.mode,
            wanted.sandbox?.verifier ?? wanted.sandbox?.mode,
          ] as [string, string, unknown, unknown],
          ["sandbox.network", "--network", existing.sandbox.network, wanted.sandbox?.network] as [string, string, unknown, unknown],
        ]
      : []),
    // Limits change what a session can do (a process killed out of memory); a run started before them keeps none to compare.
    ...(existing.limits
      ? [["limits.requested", "--limits", existing.limits.requested, wanted.limits?.requested] as [string, string, unknown, unknown]]
      : []),
  ];
  for (const [field, flag, a, b] of fields) {
    if (stable(a) !== stable(b)) {
      throw inputError(
        file,
        field,
        `the run was started with ${stable(a)}, ${flag} now gives ${stable(b)}: resume with the same options or use a new --out`,
      );
    }
  }
}
