import { auxModelCall } from "./event-helpers.js";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { inputError } from "../core/errors.js";
import { packageRoot } from "../core/package-paths.js";
import { runProcess } from "../core/process.js";
import { stateFiles } from "../rcm/store.js";
import type { AgentEvent } from "../formats/trajectory.js";
import { killGroupFromPidFile } from "./command.js";
import { below, cliEnv, cliHome, cliLaunch, cliState, type Place } from "./cli-launch.js";
import { keepStderr, requestOutcome } from "./cli-conversation.js";
import { cliOptionFields, locateCli, requireVariables, type CliPackage } from "./cli-options.js";
import { resolveOnPath } from "./command-path.js";
import { contextLimit } from "./context-limits.js";
import { cliVersion } from "./harness-version.js";
import { envNames } from "./private-env.js";
import { effectiveEffort, opencodeHighestEffort } from "./effort.js";
import { validateAgentOptions } from "./options.js";
import type { Agent, AgentContext, AgentFactory, AgentRequest, AgentResult, Conversation, EventSink } from "./types.js";

const opencodeOptionsSchema = z
  .object({
    /** PROVIDER/MODEL as OpenCode names it (`-m`). */
    model: z.string({ error: "required: --agent-opt model=PROVIDER/MODEL" }).regex(/^[^/\s]+\/\S+$/, "must be PROVIDER/MODEL"),
    /** RCM plugin mode: off (native OpenCode), router, rcm. */
    rcm: z.enum(["off", "router", "rcm"]).default("off"),
    /** RCM routing threshold. */
    threshold: z.coerce.number().min(0).max(1).default(0.8),
    /** An OpenAI-compatible endpoint for PROVIDER (e.g. `switch-swe mock-model`): defines a custom provider. */
    base_url: z.string().url().optional(),
    /** Name of the environment variable holding the API key of the custom provider. */
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    /** Context limit of the custom model (default: its known limit, see context-limits.ts); 0 turns OpenCode's auto-compaction off. */
    context: z.coerce.number().int().nonnegative().optional(),
    /** Reasoning effort: OpenCode's model variant (`--variant`, e.g. minimal, low, medium, high, max); default max = the model family's highest (effort.ts), `default`: none. */
    effort: z
      .string()
      .regex(/^[a-z][a-z0-9_-]*$/, "must be a variant name such as high")
      .optional(),
    /** OpenCode's own web fetch and search tools: off by default (docs/agents.md). */
    web: cliOptionFields.web,
    /** Variables of the caller's environment OpenCode gets, comma-separated (nothing else leaks in). */
    env: cliOptionFields.env,
    /** Output limit of the custom model. */
    output: z.coerce.number().int().positive().default(8192),
    /** RCM's auxiliary model: `host` (default: the session's model through OpenCode), `off`, `PROVIDER/MODEL`, or an endpoint `URL|MODEL`. */
    aux_model: z
      .string()
      .regex(/^(host|off|[^/\s|:]+\/\S+|https?:\/\/\S+\|\S+)$/, "must be host, off, PROVIDER/MODEL or URL|MODEL")
      .optional(),
    /** RCM's state memory: `extractive` (the deterministic updater) or `model` (the auxiliary model writes the task records, references checked: `auxModel.stateUpdates`). */
    rcm_state: z.enum(["extractive", "model"]).default("extractive"),
    /** The opencode binary (default: the one installed with switch-swe, else PATH). */
    binary: z.string().min(1).optional(),
  })
  .strict();

export type OpencodeOptions = z.infer<typeof opencodeOptionsSchema> & { binaryPath: string; pass?: string[] };

/** Where the RCM plugin entry is (built by `npm run build`). */
export const rcmPluginEntry = join(packageRoot, "dist", "opencode-plugin", "index.js");

/** Longest tool output kept in a trajectory event. */
const maxToolOutput = 2000;

export const opencodePackage: CliPackage = { command: "opencode", npm: "opencode-ai", version: "1.18.33" };

function findBinary(explicit: string | undefined): string | null {
  return explicit ? resolveOnPath(explicit) : locateCli(opencodePackage);
}

/**
 * Real OpenCode (opencode-ai 1.18.33) as an agent: one OpenCode session per switch-swe session, one
 * `opencode run --format json` per request with the message on stdin, `--session` for follow-ups.
 * Every request runs with `--dir` = the session root (the parent of the five workspaces): OpenCode
 * only resumes a session from its own directory (from another one it hangs), and the message names
 * the absolute workspace path anyway. Config comes from OPENCODE_CONFIG_CONTENT only, with HOME and
 * XDG directories private to the session, so no user configuration leaks in.
 */
export const opencodeAgent: AgentFactory<OpencodeOptions> = {
  name: "opencode",
  description:
    "real OpenCode (opencode run --format json); model=PROVIDER/MODEL, rcm=off|router|rcm, rcm_state=extractive|model, base_url=URL",
  capabilities: { confinable: true, limits: true, harnessSide: false, cli: opencodePackage, submission: "agent" },
  parse: (options) => {
    const parsed = validateAgentOptions("opencode", opencodeOptionsSchema, options);
    const binaryPath = findBinary(parsed.binary);
    if (binaryPath === null)
      throw inputError(
        "--agent-opt",
        "binary",
        `opencode not found${parsed.binary ? `: ${parsed.binary}` : " (npm install opencode-ai@1.18.33)"}`,
      );
    if (parsed.rcm !== "off" && !existsSync(rcmPluginEntry))
      throw inputError("--agent-opt", "rcm", `the RCM plugin is not built (${rcmPluginEntry}); run npm run build`);
    if (parsed.rcm_state === "model" && parsed.aux_model === "off")
      throw inputError("--agent-opt", "rcm_state", "model-written state needs the auxiliary model (aux_model is off)");
    if (parsed.api_key_env && process.env[parsed.api_key_env] === undefined)
      throw inputError("--agent-opt", "api_key_env", `${parsed.api_key_env} is not set`);
    const pass = envNames(parsed.env);
    requireVariables(pass, "env");
    return { ...parsed, binaryPath, pass: [...pass, ...(parsed.api_key_env ? [parsed.api_key_env] : [])] };
  },
  create: (options): Agent => ({
    name: "opencode",
    endpoints: opencodeEndpoints(options),
    startConversation: async (ctx) => new OpencodeConversation(ctx, options),
    describe: async () => {
      const context = contextLimit(options.model, options.base_url !== undefined, options.context);
      return {
        name: "opencode",
        package: "opencode-ai",
        version: await cliVersion(options.binaryPath),
        binary: options.binaryPath,
        model: options.model,
        effort: opencodeEffort(options),
        settings: {
          rcm: options.rcm,
          context_limit: context.limit,
          context_limit_source: context.source,
          auto_compaction: context.limit !== 0,
        },
      };
    },
  }),
};

/** The variant OpenCode runs (null: none, OpenCode's default): `effort=max`, the default, is the model family's highest. */
export function opencodeEffort(o: Pick<OpencodeOptions, "effort" | "model">): string | null {
  return effectiveEffort(o.effort, opencodeHighestEffort(o.model));
}

/** `--variant E` as the effort resolves. */
export function variantArgs(o: Pick<OpencodeOptions, "effort" | "model">): string[] {
  const effort = opencodeEffort(o);
  return effort === null ? [] : ["--variant", effort];
}

/** Where the known providers' APIs are, for `--network model` when no base_url is given. */
const providerEndpoints: Record<string, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
  google: "https://generativelanguage.googleapis.com",
  openrouter: "https://openrouter.ai",
  groq: "https://api.groq.com",
  mistral: "https://api.mistral.ai",
  deepseek: "https://api.deepseek.com",
  xai: "https://api.x.ai",
};

/** The model endpoints a session's OpenCode calls: the provider's (base_url, else its known API) and RCM's auxiliary endpoint. */
function opencodeEndpoints(o: OpencodeOptions): string[] | undefined {
  const main = o.base_url ?? providerEndpoints[o.model.split("/")[0]!];
  if (main === undefined) return undefined;
  const aux = o.aux_model?.includes("|") ? [o.aux_model.split("|")[0]!] : [];
  return [main, ...aux];
}

/**
 * At every start OpenCode installs `@opencode-ai/plugin` from npm into its config directory unless
 * that directory has a node_modules and a lock file naming the package. The session's config comes
 * from OPENCODE_CONFIG_CONTENT, so nothing there needs it; with no registry in reach (`--network
 * model` or `none`) npm's retries cost about 70 s per request, and with one they download the same
 * package per session. An empty node_modules and a lock file that names it make the check pass.
 */
function settleConfigDependencies(configDir: string): void {
  mkdirSync(join(configDir, "node_modules"), { recursive: true });
  const lock = {
    name: "opencode-config",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } },
  };
  writeFileSync(join(configDir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
}

/** The OpenCode configuration of a session (given as OPENCODE_CONFIG_CONTENT). */
export function opencodeConfig(o: OpencodeOptions, rcmStateDir: string): Record<string, unknown> {
  const [provider, ...rest] = o.model.split("/");
  const model = rest.join("/");
  const web = o.web === "on" ? "allow" : "deny";
  const config: Record<string, unknown> = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    permission: {
      edit: "allow",
      bash: "allow",
      webfetch: web,
      websearch: web,
      codesearch: web,
      external_directory: "allow",
      doom_loop: "allow",
    },
  };
  if (o.base_url) {
    config.provider = {
      [provider!]: {
        npm: "@ai-sdk/openai-compatible",
        name: provider,
        options: { baseURL: o.base_url, apiKey: o.api_key_env ? `{env:${o.api_key_env}}` : "switch-swe" },
        models: {
          [model]: {
            name: model,
            limit: { context: contextLimit(o.model, true, o.context).limit!, output: o.output },
            ...(opencodeEffort(o) !== null ? { variants: { [opencodeEffort(o)!]: { reasoningEffort: opencodeEffort(o) } } } : {}),
          },
        },
      },
    };
  }
  if (o.rcm !== "off") {
    const pluginOptions: Record<string, unknown> = { mode: o.rcm, threshold: o.threshold, stateDir: rcmStateDir };
    const stateUpdates = o.rcm_state === "model" ? { stateUpdates: true } : {};
    if (o.aux_model === "off") pluginOptions.auxModel = "off";
    else if (o.aux_model === "host" || o.aux_model === undefined)
      pluginOptions.auxModel = o.rcm_state === "model" ? { host: true, ...stateUpdates } : o.aux_model;
    else if (!o.aux_model.includes("|")) pluginOptions.auxModel = { host: true, model: o.aux_model, ...stateUpdates };
    else {
      const [baseURL, auxModel] = o.aux_model.split("|") as [string, string];
      pluginOptions.auxModel = { baseURL, model: auxModel, ...(o.api_key_env ? { apiKeyEnv: o.api_key_env } : {}), ...stateUpdates };
    }
    if (pluginOptions.auxModel === undefined) delete pluginOptions.auxModel;
    // The package directory, as OpenCode loads an installed npm plugin: its `exports["./server"]`.
    config.plugin = [[pathToFileURL(packageRoot).href, pluginOptions]];
  }
  return config;
}

/** Converts one line of `opencode run --format json` into agent events (never throws). */
export function opencodeEvents(line: string, model: string): { sessionID?: string; events: AgentEvent[]; error?: string } {
  let e: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== "object") return { events: [] };
    e = parsed as Record<string, unknown>;
  } catch {
    return line.trim() ? { events: [{ kind: "text", text: line.trim().slice(0, 4000) }] } : { events: [] };
  }
  const sessionID = typeof e.sessionID === "string" ? e.sessionID : undefined;
  const part = (e.part ?? {}) as Record<string, unknown>;
  const out = (events: AgentEvent[], error?: string) => ({ ...(sessionID ? { sessionID } : {}), events, ...(error ? { error } : {}) });
  switch (e.type) {
    case "step_finish": {
      const t = (part.tokens ?? {}) as { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
      const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
      return out([
        {
          kind: "model_call",
          model,
          // OpenCode's tokens.input excludes cached input and tokens.output excludes reasoning.
          input_tokens: n(t.input),
          output_tokens: n(t.output),
          cached_input_tokens: n(t.cache?.read),
          cache_write_tokens: n(t.cache?.write),
          reasoning_tokens: n(t.reasoning),
          cost_usd: n(part.cost),
        },
      ]);
    }
    case "tool_use": {
      const state = (part.state ?? {}) as { status?: string; input?: Record<string, unknown>; output?: unknown; error?: unknown };
      const input = state.input ?? {};
      const paths = ["filePath", "path"].flatMap((k) => (typeof input[k] === "string" ? [input[k]] : []));
      const output = typeof state.output === "string" ? state.output : typeof state.error === "string" ? state.error : undefined;
      return out([
        {
          kind: "tool_call",
          name: typeof part.tool === "string" ? part.tool : "tool",
          args: input,
          ...(paths.length ? { paths } : {}),
          ...(state.status ? { status: state.status } : {}),
          ...(output !== undefined ? { output: output.length > maxToolOutput ? `${output.slice(0, maxToolOutput)}…` : output } : {}),
        },
      ]);
    }
    case "text":
      return typeof part.text === "string" && part.text.trim() ? out([{ kind: "text", text: part.text }]) : out([]);
    case "error": {
      const err = (e.error ?? {}) as { name?: unknown; data?: { message?: unknown } };
      const message = typeof err.data?.message === "string" ? err.data.message : String(err.name ?? "error");
      return out([{ kind: "error", message }], message);
    }
    default:
      return out([]);
  }
}

class OpencodeConversation implements Conversation {
  private sessionID: string | null = null;
  private readonly root: string;
  private readonly rcmDir: Place;
  private readonly pidFile: string;
  private readonly env: Record<string, string>;
  /** Read-only inside the sandbox for the RCM plugin: switch-swe's package (its manifest, dist and dependencies). */
  private readonly binds: string[];
  /** Bytes of the RCM usage file already turned into events. */
  private usageOffset = 0;

  constructor(
    private readonly ctx: AgentContext,
    private readonly o: OpencodeOptions,
  ) {
    const roots = new Set(Object.values(ctx.workspaces).map((p) => dirname(p)));
    if (roots.size !== 1) throw new Error(`opencode: the workspaces do not share one parent directory: ${[...roots].join(", ")}`);
    this.root = [...roots][0]!;
    const home = cliHome(ctx, join(ctx.stateDir, "opencode-home"));
    this.rcmDir = below(cliState(ctx), "rcm");
    this.pidFile = join(ctx.stateDir, "pid");
    for (const d of [home.host, this.rcmDir.host, ctx.logDir]) mkdirSync(d, { recursive: true });
    settleConfigDependencies(join(home.host, ".config", "opencode"));
    // The plugin writes its state where the agent sees it; the harness reads it on the host side.
    const config = opencodeConfig(o, this.rcmDir.inside);
    this.binds = o.rcm === "off" ? [] : ["package.json", "dist", "node_modules"].map((p) => join(packageRoot, p));
    writeFileSync(join(ctx.logDir, "opencode-config.json"), `${JSON.stringify(config, null, 2)}\n`);
    // A private HOME and XDG directories, and only the variables the caller named.
    this.env = cliEnv(ctx, home, o.pass ?? [], {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_PROJECT_CONFIG: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    });
  }

  async send(req: AgentRequest, onEvent: EventSink): Promise<AgentResult> {
    const args = ["run", "--format", "json", "--dir", this.root, "-m", this.o.model, "--auto", ...variantArgs(this.o)];
    // An explicit title: OpenCode then makes no extra title-generation model call. It names nothing
    // (not the task, condition or role): the agent can read its own session database.
    if (this.sessionID) args.push("--session", this.sessionID);
    else args.push("--title", "switch-swe");
    // Unsandboxed, a shell records the process group in the pid file for Ctrl-C and a restarted harness.
    const launch = cliLaunch(this.ctx, this.o.binaryPath, args, this.root, this.env, this.pidFile, this.binds, req.signal);
    const onAbort = () => killGroupFromPidFile(this.pidFile);
    req.signal.addEventListener("abort", onAbort);
    let error: string | undefined;
    let steps = 0;
    try {
      const r = await runProcess(launch.command, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        ...(launch.signal ? { signal: launch.signal } : {}),
        input: req.message,
        timeoutMs: req.timeoutMs,
        maxBuffer: 4 * 1024 * 1024,
        onStdoutLine: (line) => {
          const parsed = opencodeEvents(line, this.o.model);
          if (parsed.sessionID && !this.sessionID) this.sessionID = parsed.sessionID;
          if (parsed.error) error = parsed.error;
          for (const ev of parsed.events) {
            if (ev.kind === "model_call") steps++;
            onEvent(ev);
          }
        },
      });
      this.emitAuxUsage(onEvent);
      keepStderr(this.ctx.logDir, req, r.stderr);
      return requestOutcome("opencode", r, req, {
        ...(error !== undefined ? { error } : {}),
        conversation: this.sessionID,
        modelCalls: steps,
      });
    } finally {
      req.signal.removeEventListener("abort", onAbort);
    }
  }

  /** RCM's own model calls (the plugin appends them to a usage file) become auxiliary model_call events. */
  private emitAuxUsage(onEvent: EventSink): void {
    if (!this.sessionID) return;
    const file = stateFiles.usage(this.rcmDir.host, this.sessionID);
    if (!existsSync(file)) return;
    const buf = readFileSync(file);
    const text = buf.subarray(this.usageOffset).toString("utf8");
    const end = text.lastIndexOf("\n");
    if (end < 0) return;
    this.usageOffset += Buffer.byteLength(text.slice(0, end + 1));
    for (const line of text.slice(0, end).split("\n")) {
      try {
        const u = JSON.parse(line) as {
          model?: string;
          input_tokens?: number;
          output_tokens?: number;
          cached_input_tokens?: number;
          reasoning_tokens?: number;
        };
        onEvent(auxModelCall(u));
      } catch {
        // a torn line is skipped
      }
    }
  }

  /** Keeps RCM's state file with the session's logs (the state directory goes with the workspaces). */
  async close(): Promise<void> {
    if (!this.sessionID || this.o.rcm === "off") return;
    const state = stateFiles.state(this.rcmDir.host, this.sessionID);
    if (existsSync(state)) copyFileSync(state, join(this.ctx.logDir, "rcm-state.json"));
  }
}
