import { Command, Option } from "commander";
import { confineBackend, confineModes } from "../../confine/registry.js";
import { defaultLimitsText, parseLimits } from "../../confine/limits.js";
import { agentFactory, agentNames } from "../../agents/registry.js";
import { networkModes, type NetworkMode } from "../../confine/egress.js";
import { parseAgentOptionPairs } from "../../agents/options.js";
import { reporterFor } from "../../run/progress-log.js";
import { runSessions } from "../../run/runner.js";
import { defaultRequestTimeoutS } from "../../run/run-options.js";
import type { ConditionChoice } from "../../run/session-selection.js";
import { ExitCode, verificationExitCode } from "../exit-codes.js";
import { collect, parseCount, parsePositive, parsePositiveNumber } from "../options.js";
import { queueBackendFor } from "./queue-backend.js";

/** Each backend of the registry in a few words, for --help. */
function sandboxHelp(): string {
  return confineModes()
    .map((m) => `${m} (${confineBackend(m).summary})`)
    .join(", or ");
}

interface RunFlags {
  dataset?: string;
  sessions?: string;
  agent?: string;
  agentOpt?: string[];
  condition?: ConditionChoice;
  session?: string[];
  concurrency: number;
  requestTimeout?: number;
  out: string;
  resume?: boolean;
  seed?: number;
  keepWorkspaces?: boolean;
  sandbox?: string;
  network?: NetworkMode;
  submission?: "agent" | "checkout";
  limits?: string;
  label?: string;
  verify: boolean;
  quiet?: boolean;
  json?: boolean;
  queue?: string | boolean;
  rcm?: "off" | "router" | "rcm";
  rcmState?: "extractive" | "model";
}

/** Aborted at the first SIGINT or SIGTERM (the run stops and can be resumed); a second one quits at once. */
function stopOnSignals(): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) process.exit(130);
    process.stderr.write(`\n${sig}: stopping the agents; the run can be continued with --resume (again to quit at once)\n`);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: stop.signal,
    release: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("drive an agent through the sessions of a sessions file and record everything in RUN_DIR")
    .addHelpText(
      "after",
      () =>
        `\nAgents (--agent) and their options (--agent-opt key=value):\n${agentNames()
          .map((n) => `  ${n.padEnd(12)} ${agentFactory(n).description}`)
          .join("\n")}`,
    )
    .option("--dataset <dir>", "dataset directory (on --resume: taken from run.json)")
    .option("--sessions <file>", "sessions file from `sessions build` (on --resume: taken from run.json)")
    .option("--agent <name>", `agent: ${agentNames().join(", ")} (on --resume: taken from run.json)`)
    .option("--agent-opt <key=value>", "agent option, repeatable (each agent's options are listed below)", collect)
    .addOption(new Option("--condition <condition>", "which sessions of each pair (default both)").choices(["base", "switch", "both"]))
    .option("--session <id>", "run only this session (<focus>.base or <focus>.switch), repeatable", collect)
    .option("--concurrency <n>", "sessions run in parallel", parsePositive("--concurrency"), 1)
    .option(
      "--request-timeout <seconds>",
      `wall-clock budget per request (default ${defaultRequestTimeoutS})`,
      parsePositiveNumber("--request-timeout"),
    )
    .requiredOption("--out <run_dir>", "run directory (must not exist or be empty, unless --resume)")
    .option("--resume", "continue the run in --out: finished sessions are kept, cut-off sessions restart")
    .option("--seed <n>", "run seed (the oracle's forget draws; default 0)", parseCount("--seed"))
    .option("--keep-workspaces", "keep the workspace checkouts under RUN_DIR/work after each session")
    .addOption(
      new Option(
        "--sandbox <mode>",
        `confine the agent and the verifier: ${sandboxHelp()} (the first is the default; see docs/verification.md; on --resume: taken from run.json)`,
      ).choices(confineModes()),
    )
    .addOption(
      new Option(
        "--network <mode>",
        "the agent's network inside the sandbox: model (default: only the model endpoint(s) its options name), none, or on (everything; on --resume: taken from run.json)",
      ).choices(networkModes),
    )
    .addOption(
      new Option(
        "--submission <mode>",
        "the scored artifact: agent (the patch the agent writes to final.patch when asked at finalization; default for real agents) or checkout (the focus checkout's diff; default for oracle, nop, command)",
      ).choices(["agent", "checkout"]),
    )
    .option(
      "--limits <spec>",
      `resource limits of each session and each test run through cgroups: cpus=N,memory=SIZE,pids=N or none (default ${defaultLimitsText}; on --resume: taken from run.json)`,
    )
    .addOption(
      new Option(
        "--rcm <mode>",
        "put the RCM proxy in front of the agent's model endpoint (base_url) for the run: off (proxy only), router or rcm (docs/rcm.md)",
      ).choices(["off", "router", "rcm"]),
    )
    .addOption(
      new Option(
        "--rcm-state <kind>",
        "with --rcm: the state memory, model (default of --rcm rcm: the agent's own model writes the task records, references checked) or extractive (the deterministic updater); docs/rcm.md",
      ).choices(["extractive", "model"]),
    )
    .option("--label <text>", "configuration label for reports (default: agent and options)")
    .option("--no-verify", "do not verify the artifacts at the end")
    .option("--quiet", "no progress output")
    .option("--json", "progress as JSON lines on stdout")
    .option("--queue [url]", "coordinate: sessions run on `switch-swe worker`s of this Redis queue (URL, or $SWITCH_SWE_QUEUE)")
    .action(runFromFlags);
}

/** The `run` command's action: flags to a run, outcome to an exit code. */
async function runFromFlags(o: RunFlags): Promise<void> {
  const limits = o.limits === undefined ? undefined : parseLimits(o.limits);
  const backend = await queueBackendFor(o.queue, o.out, o.resume === true);
  const reporter = reporterFor({ quiet: o.quiet === true, json: o.json === true }, process.stdout, process.stderr);
  const stop = stopOnSignals();
  try {
    const outcome = await runSessions({
      out: o.out,
      resume: o.resume === true,
      ...(o.dataset !== undefined ? { dataset: o.dataset } : {}),
      ...(o.sessions !== undefined ? { sessions: o.sessions } : {}),
      ...(o.agent !== undefined ? { agent: o.agent } : {}),
      ...(o.agentOpt !== undefined ? { agentOptions: parseAgentOptionPairs(o.agentOpt) } : {}),
      ...(o.condition !== undefined ? { condition: o.condition } : {}),
      ...(o.session !== undefined ? { sessionIds: o.session } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.label !== undefined ? { label: o.label } : {}),
      ...(o.rcm !== undefined ? { rcm: o.rcm } : {}),
      ...(o.rcmState !== undefined ? { rcmState: o.rcmState } : {}),
      ...(o.requestTimeout !== undefined ? { requestTimeoutS: o.requestTimeout } : {}),
      concurrency: o.concurrency,
      keepWorkspaces: o.keepWorkspaces === true,
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(o.network ? { network: o.network } : {}),
      ...(o.submission ? { submission: o.submission } : {}),
      ...(limits ? { limits } : {}),
      verify: o.verify,
      progress: (e) => reporter.emit(e),
      signal: stop.signal,
      ...(backend ? { backend } : {}),
    });
    if (outcome.infraFaults.length > 0) {
      process.stderr.write(
        `${outcome.infraFaults.length} verdict(s) are infrastructure faults (${outcome.infraFaults.join(", ")}): see each session's verify.log; \`switch-swe verify ${o.out}\` verifies them again\n`,
      );
    }
    if (outcome.interrupted) process.exitCode = 130;
    else if (outcome.failed.length > 0) process.exitCode = ExitCode.checkFailed;
    else process.exitCode = verificationExitCode(outcome.infraFaults.length);
  } finally {
    reporter.close();
    stop.release();
  }
}
