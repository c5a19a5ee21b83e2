import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { toJsonText } from "../../core/json-file.js";
import { evaluateRun, runRepository } from "../../rcm/eval/evaluate.js";
import { formatEvalReport, formatPooledEval } from "../../rcm/eval/format.js";
import { poolRunEvals } from "../../rcm/eval/pooled.js";
import { installLocalPlugin } from "../../opencode-plugin/local-file.js";
import { startRcmProxy } from "../../rcm/proxy/server.js";
import { inputError } from "../../core/errors.js";
import { parseInteger } from "../options.js";
import { untilStopped } from "../until-stopped.js";

function parseUpstream(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`--upstream must be an http or https URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidArgumentError(`--upstream must be an http or https URL, got "${value}"`);
  return value;
}

interface ProxyFlags {
  upstream: string;
  mode: "off" | "router" | "rcm";
  port: number;
  threshold?: number;
  log?: string;
  apiKeyEnv?: string;
  aux: "upstream" | "off";
  state?: "extractive" | "model";
}

/** `rcm proxy`: serves until SIGINT or SIGTERM. */
async function serveProxy(o: ProxyFlags): Promise<void> {
  if (o.apiKeyEnv !== undefined && process.env[o.apiKeyEnv] === undefined)
    throw inputError("--api-key-env", "", `${o.apiKeyEnv} is not set`);
  if (o.state === "model" && o.aux === "off")
    throw inputError("--state", "", "model-written state needs the auxiliary model (--aux upstream)");
  const proxy = await startRcmProxy({
    upstream: o.upstream,
    mode: o.mode,
    port: o.port,
    aux: o.aux,
    ...(o.state ? { state: o.state } : {}),
    ...(o.threshold !== undefined ? { rcm: { threshold: o.threshold } } : {}),
    ...(o.log ? { logFile: o.log } : {}),
    ...(o.apiKeyEnv ? { keyEnv: o.apiKeyEnv } : {}),
  });
  process.stdout.write(
    `listening on ${proxy.baseURL} (port ${proxy.port}; mode ${o.mode}; upstream ${new URL(o.upstream).origin}): give agents this base URL\n`,
  );
  await untilStopped(() => proxy.close());
}

function parseThreshold(value: string): number {
  const x = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || x < 0 || x > 1) throw new InvalidArgumentError(`--threshold must be between 0 and 1, got "${value}"`);
  return x;
}

function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`${name} must be one of ${values.join(", ")}, got "${value}"`);
    return value as T;
  };
}

export function registerRcm(program: Command): void {
  const rcm = program
    .command("rcm")
    .description("the Resumption Context Manager: offline evaluation, the OpenCode plugin and the model-endpoint proxy");
  rcm
    .command("eval")
    .description(
      "replay the switched sessions of one or more runs through RCM offline: routing accuracy, context tokens, invariant; several runs: a line per repository and a pooled line",
    )
    .argument("<run-dirs...>", "run directories (switch-swe run)")
    .option("--mode <mode>", "router or rcm", oneOf("--mode", ["router", "rcm"] as const), "rcm")
    .option("--threshold <x>", "routing confidence threshold", parseThreshold)
    .option("--format <format>", "text or json", oneOf("--format", ["text", "json"] as const), "text")
    .option(
      "--workspace-lines <which>",
      "both, shown or hidden: measure with the harness's Workspace: lines, without them (routing by what the conversation shows), or both",
      oneOf("--workspace-lines", ["both", "shown", "hidden"] as const),
      "both",
    )
    .action(evalRuns);
  rcm
    .command("proxy")
    .description(
      "serve RCM on the model endpoint (OpenAI chat and Responses, Anthropic Messages, Gemini): any agent whose base URL points here gets RCM's history",
    )
    .requiredOption("--upstream <url>", "the model API requests go to (its path is the base path agents use)", parseUpstream)
    .option("--mode <mode>", "off, router or rcm", oneOf("--mode", ["off", "router", "rcm"] as const), "rcm")
    .option("--port <n>", "port on 127.0.0.1; 0 picks a free one", parseInteger("--port", 0, 65535), 0)
    .option("--threshold <x>", "routing confidence threshold", parseThreshold)
    .option("--log <file>", "append one JSON line per request: what was kept, dropped and added (docs/rcm.md)")
    .option("--api-key-env <name>", "variable of this process holding the upstream key: it replaces the key agents send")
    .option(
      "--aux <source>",
      "the auxiliary model (routing below the threshold, model-written state): upstream (the agent's own model, through the upstream) or off",
      oneOf("--aux", ["upstream", "off"] as const),
      "upstream",
    )
    .option(
      "--state <kind>",
      "the state memory of mode rcm: model (default with --aux upstream: the auxiliary model writes the task records, references checked) or extractive (default with --aux off: the deterministic updater)",
      oneOf("--state", ["extractive", "model"] as const),
    )
    .action(serveProxy);
  rcm
    .command("install-plugin")
    .description("write a local OpenCode plugin file (.opencode/plugin/switch-swe-rcm.js) that loads RCM from this installation")
    .argument("[project-dir]", "project directory", ".")
    .option("--mode <mode>", "off, router or rcm", oneOf("--mode", ["off", "router", "rcm"] as const), "rcm")
    .option("--threshold <x>", "routing confidence threshold", parseThreshold)
    .option("--state-dir <dir>", "where per-session state is kept (default: $XDG_STATE_HOME/switch-swe/rcm)")
    .action((dir: string, o: { mode: "off" | "router" | "rcm"; threshold?: number; stateDir?: string }) => {
      const file = installLocalPlugin(dir, {
        mode: o.mode,
        ...(o.threshold !== undefined ? { threshold: o.threshold } : {}),
        ...(o.stateDir ? { stateDir: o.stateDir } : {}),
      });
      process.stdout.write(`${file}: RCM plugin for OpenCode (mode ${o.mode})\n`);
    });
}

/** `rcm eval`: one run's report, or a line per repository and a pooled line for several. */
function evalRuns(
  runDirs: string[],
  o: { mode: "router" | "rcm"; threshold?: number; format: "text" | "json"; workspaceLines: "both" | "shown" | "hidden" },
): void {
  const workspaceLines = o.workspaceLines === "both" ? (["shown", "hidden"] as const) : [o.workspaceLines];
  const runs = runDirs.map((runDir) => {
    const report = evaluateRun(runDir, { mode: o.mode, workspaceLines, ...(o.threshold !== undefined ? { threshold: o.threshold } : {}) });
    const n = report.unfinished_sessions.length;
    if (n > 0) {
      process.stderr.write(
        `warning: ${runDir}: ${n} session(s) not finished (${report.unfinished_sessions.slice(0, 5).join(", ")}${n > 5 ? ", …" : ""}): left out; finish the run (\`switch-swe run --out ${runDir} --resume\`) before reading these figures as the run's\n`,
      );
    }
    return { run_dir: runDir, repository: runRepository(runDir), report };
  });
  if (runs.length === 1) {
    process.stdout.write(o.format === "json" ? toJsonText(runs[0]!.report) : formatEvalReport(runs[0]!.report));
    return;
  }
  const pooled = poolRunEvals(runs);
  process.stdout.write(o.format === "json" ? toJsonText(pooled) : formatPooledEval(pooled));
}
