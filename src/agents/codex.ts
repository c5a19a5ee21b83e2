import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CliConversation, type CliDriver } from "./cli-conversation.js";
import { cliOptionFields, extraArgs, findCli, requireVariables, type CliPackage } from "./cli-options.js";
import { CodexParser, zeroUsage, type CodexThreadState } from "./codex-events.js";
import { cliVersion } from "./harness-version.js";
import { validateAgentOptions } from "./options.js";
import { agentEnv, envNames } from "./private-env.js";
import { sessionRoot } from "./session-root.js";
import type { Agent, AgentContext, AgentFactory, AgentRequest } from "./types.js";

const codexOptionsSchema = z
  .object({
    ...cliOptionFields,
    /** `model_reasoning_effort` (default: Codex's own). */
    effort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  })
  .strict();

export type CodexOptions = z.infer<typeof codexOptionsSchema> & { binaryPath: string; extra: string[]; pass: string[] };

export const codexPackage: CliPackage = { command: "codex", npm: "@openai/codex", version: "0.171.0" };

/** The custom provider's key variable inside the agent's environment. */
const providerKeyVar = "SWITCH_SWE_CODEX_API_KEY";

/** `-c` overrides: a custom Responses provider for base_url, the effort. */
function configArgs(o: CodexOptions): string[] {
  const out: string[] = [];
  if (o.base_url) {
    const provider = `{name="switch-swe",base_url=${JSON.stringify(o.base_url)},env_key="${providerKeyVar}",wire_api="responses"}`;
    out.push("-c", "model_provider=switchswe", "-c", `model_providers.switchswe=${provider}`);
  }
  if (o.effort) out.push("-c", `model_reasoning_effort=${o.effort}`);
  return out;
}

function codexEnv(o: CodexOptions, home: string): Record<string, string> {
  const key = process.env[o.api_key_env ?? "OPENAI_API_KEY"];
  const own: Record<string, string> = { CODEX_HOME: join(home, ".codex") };
  mkdirSync(own.CODEX_HOME!, { recursive: true });
  if (o.base_url) own[providerKeyVar] = key ?? "switch-swe";
  else if (key !== undefined) {
    own.OPENAI_API_KEY = key;
    own.CODEX_API_KEY = key;
  }
  return agentEnv(home, o.pass, own);
}

function codexDriver(ctx: AgentContext, o: CodexOptions): CliDriver {
  const home = join(ctx.stateDir, "home");
  const env = codexEnv(o, home);
  const state: CodexThreadState = { thread: null, usage: zeroUsage, rolloutOffset: 0 };
  const root = sessionRoot(ctx, "codex");
  return {
    cli: "codex",
    binaryPath: o.binaryPath,
    cwd: root,
    env,
    // `-C`, the sandbox flags and `-c` must come before `resume`; the prompt (`-`) is read from stdin.
    args: (_req: AgentRequest, thread: string | null) => [
      "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", root,
      ...(o.model ? ["-m", o.model] : []),
      ...configArgs(o),
      ...o.extra,
      ...(thread ? ["resume", thread] : []),
      "-",
    ],
    input: (req: AgentRequest) => req.message,
    parser: () => new CodexParser(state, o.model, env.CODEX_HOME!),
  };
}

/**
 * Real Codex (`@openai/codex` 0.171.0): one `codex exec --json` per request, the message on stdin,
 * `resume THREAD` after the first; usage per inference step from the thread's rollout file in the
 * private CODEX_HOME.
 */
export const codexAgent: AgentFactory<CodexOptions> = {
  name: "codex",
  description: "real Codex (codex exec --json); model=, effort=minimal..xhigh, base_url= (OpenAI Responses endpoint)",
  parse: (options) => {
    const parsed = validateAgentOptions("codex", codexOptionsSchema, options);
    const binaryPath = findCli(codexPackage, parsed.bin);
    const pass = envNames(parsed.env);
    requireVariables(pass, "env");
    if (parsed.api_key_env) requireVariables([parsed.api_key_env], "api_key_env");
    else if (!parsed.base_url) requireVariables(["OPENAI_API_KEY"], "api_key_env");
    return { ...parsed, binaryPath, extra: extraArgs(parsed.arg), pass };
  },
  create: (o): Agent => ({
    name: "codex",
    startConversation: async (ctx) => new CliConversation(ctx, codexDriver(ctx, o)),
    describe: async () => ({ name: "codex", package: codexPackage.npm, version: await cliVersion(o.binaryPath), binary: o.binaryPath, model: o.model ?? null, effort: o.effort ?? null }),
  }),
};
