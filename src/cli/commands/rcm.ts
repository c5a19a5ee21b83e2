import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { toJsonText } from "../../core/json-file.js";
import { evaluateRun } from "../../rcm/eval/evaluate.js";
import { formatEvalReport } from "../../rcm/eval/format.js";
import { installLocalPlugin } from "../../opencode-plugin/local-file.js";

function parseThreshold(value: string): number {
  const x = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || x < 0 || x > 1) throw new InvalidArgumentError(`--threshold must be between 0 and 1, got "${value}"`);
  return x;
}

function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`${name} must be one of ${values.join(", ")}, got "${value}"`);
    return value as T;
  };
}

export function registerRcm(program: Command): void {
  const rcm = program.command("rcm").description("the Resumption Context Manager: offline evaluation and the OpenCode plugin");
  rcm
    .command("eval")
    .description("replay the switched sessions of a run through RCM offline: routing accuracy, context tokens, invariant")
    .argument("<run-dir>", "run directory (switch-swe run)")
    .option("--mode <mode>", "router or rcm", oneOf("--mode", ["router", "rcm"] as const), "rcm")
    .option("--threshold <x>", "routing confidence threshold", parseThreshold)
    .option("--format <format>", "text or json", oneOf("--format", ["text", "json"] as const), "text")
    .option("--workspace-lines <which>", "both, shown or hidden: measure with the harness's Workspace: lines, without them (routing by what the conversation shows), or both", oneOf("--workspace-lines", ["both", "shown", "hidden"] as const), "both")
    .action((runDir: string, o: { mode: "router" | "rcm"; threshold?: number; format: "text" | "json"; workspaceLines: "both" | "shown" | "hidden" }) => {
      const workspaceLines = o.workspaceLines === "both" ? (["shown", "hidden"] as const) : [o.workspaceLines];
      const report = evaluateRun(runDir, { mode: o.mode, workspaceLines, ...(o.threshold !== undefined ? { threshold: o.threshold } : {}) });
      const n = report.unfinished_sessions.length;
      if (n > 0) {
        process.stderr.write(
          `warning: ${runDir}: ${n} session(s) not finished (${report.unfinished_sessions.slice(0, 5).join(", ")}${n > 5 ? ", …" : ""}): left out; finish the run (\`switch-swe run --out ${runDir} --resume\`) before reading these figures as the run's\n`,
        );
      }
      process.stdout.write(o.format === "json" ? toJsonText(report) : formatEvalReport(report));
    });
  rcm
    .command("install-plugin")
    .description("write a local OpenCode plugin file (.opencode/plugin/switch-swe-rcm.js) that loads RCM from this installation")
    .argument("[project-dir]", "project directory", ".")
    .option("--mode <mode>", "off, router or rcm", oneOf("--mode", ["off", "router", "rcm"] as const), "rcm")
    .option("--threshold <x>", "routing confidence threshold", parseThreshold)
    .option("--state-dir <dir>", "where per-session state is kept (default: $XDG_STATE_HOME/switch-swe/rcm)")
    .action((dir: string, o: { mode: "off" | "router" | "rcm"; threshold?: number; stateDir?: string }) => {
      const file = installLocalPlugin(dir, { mode: o.mode, ...(o.threshold !== undefined ? { threshold: o.threshold } : {}), ...(o.stateDir ? { stateDir: o.stateDir } : {}) });
      process.stdout.write(`${file}: RCM plugin for OpenCode (mode ${o.mode})\n`);
    });
}
