import { inputError } from "../core/errors.js";
import type { RunConfigRead } from "../formats/run-config.js";
import { runFiles } from "../formats/run-layout.js";

/**
 * The RCM mode a run's agent worked under, and where run.json says so: the proxy's `rcm.mode`
 * (`run --rcm`), or OpenCode's plugin option (`--agent-opt rcm=…`). `off` (the proxy passing everything
 * through) is no RCM: null.
 */
export function rcmModeOf(config: RunConfigRead): { mode: "router" | "rcm"; field: string } | null {
  const proxy = config.rcm?.mode;
  if (proxy === "router" || proxy === "rcm") return { mode: proxy, field: "rcm.mode" };
  const options = config.agent.options;
  const plugin = options && typeof options === "object" && !Array.isArray(options) ? (options as Record<string, unknown>).rcm : undefined;
  if (plugin === "router" || plugin === "rcm") return { mode: plugin, field: "agent.options.rcm" };
  return null;
}

/**
 * Table 3 compares a native run with runs that used RCM: an "+RCM" arm that never used RCM (or a native
 * arm that did) would put a figure under the wrong name. Throws the first mismatch as one input error.
 */
export function assertRcmArms(
  native: { runDir: string; config: RunConfigRead },
  rcm: readonly { runDir: string; config: RunConfigRead }[],
): void {
  const nativeMode = rcmModeOf(native.config);
  if (nativeMode)
    throw inputError(runFiles.config(native.runDir), nativeMode.field, `is "${nativeMode.mode}": --native needs a run without RCM`);
  for (const r of rcm) {
    if (!rcmModeOf(r.config))
      throw inputError(
        runFiles.config(r.runDir),
        "rcm.mode",
        'missing (nor agent.options.rcm "router" or "rcm"): --rcm needs a run made with RCM (run --rcm, or --agent-opt rcm=…)',
      );
  }
}
