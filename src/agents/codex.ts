import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CliDriver } from "./cli-conversation.js";
import { cliAgent, type CliAgentOptions } from "./cli-agent.js";
import { below, cliEnv, cliHome, type Place } from "./cli-launch.js";
import { cliOptionFields, type CliPackage } from "./cli-options.js";
import { CodexParser, zeroUsage, type CodexThreadState } from "./codex-events.js";
import { sessionRoot } from "./session-root.js";
import { effectiveEffort, effortOption } from "./effort.js";

/** Codex's highest `model_reasoning_effort`. */
export const codexHighestEffort = "xhigh";
import type { AgentContext, AgentRequest } from "./types.js";

const codexOptionsSchema = z
  .object({
    ...cliOptionFields,
    /** `model_reasoning_effort`: minimal..xhigh (default max = xhigh, its highest; `default`: Codex's own). */
    effort: effortOption(["minimal", "low", "medium", "high", "xhigh"]),
  })
  .strict();

export type CodexOptions = CliAgentOptions<z.infer<typeof codexOptionsSchema>>;

export const codexPackage: CliPackage = { command: "codex", npm: "@openai/codex", version: "0.171.0" };

/** The custom provider's key variable inside the agent's environment. */
const providerKeyVar = "SWITCH_SWE_CODEX_API_KEY";

/** `-c` overrides: a custom Responses provider for base_url, the effort. */
export function configArgs(o: Pick<CodexOptions, "base_url" | "effort"> & Partial<Pick<CodexOptions, "web">>): string[] {
  const out: string[] = [];
  if (o.base_url) {
    const provider = `{name="switch-swe",base_url=${JSON.stringify(o.base_url)},env_key="${providerKeyVar}",wire_api="responses"}`;
    out.push("-c", "model_provider=switchswe", "-c", `model_providers.switchswe=${provider}`);
  }
  const effort = effectiveEffort(o.effort, codexHighestEffort);
  if (effort !== null) out.push("-c", `model_reasoning_effort=${effort}`);
  // The web search tool (off unless web=on; `web_search` in newer releases, `tools.web_search` before).
  out.push("-c", `web_search=${o.web === "on" ? '"live"' : '"disabled"'}`, "-c", `tools.web_search=${o.web === "on"}`);
  return out;
}

function codexEnv(ctx: AgentContext, o: CodexOptions, home: Place, codexHome: Place): Record<string, string> {
  const key = process.env[o.api_key_env ?? "OPENAI_API_KEY"];
  const own: Record<string, string> = { CODEX_HOME: codexHome.inside };
  mkdirSync(codexHome.host, { recursive: true });
  if (o.base_url) own[providerKeyVar] = key ?? "switch-swe";
  else if (key !== undefined) {
    own.OPENAI_API_KEY = key;
    own.CODEX_API_KEY = key;
  }
  return cliEnv(ctx, home, o.pass, own);
}

function codexDriver(ctx: AgentContext, o: CodexOptions): CliDriver {
  const home = cliHome(ctx, join(ctx.stateDir, "home"));
  const codexHome = below(home, ".codex");
  const env = codexEnv(ctx, o, home, codexHome);
  const state: CodexThreadState = { thread: null, usage: zeroUsage, rolloutOffset: 0 };
  const root = sessionRoot(ctx, "codex");
  return {
    cli: "codex",
    binaryPath: o.binaryPath,
    cwd: root,
    env,
    // `-C`, the sandbox flags and `-c` must come before `resume`; the prompt (`-`) is read from stdin.
    args: (_req: AgentRequest, thread: string | null) => [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-C",
      root,
      ...(o.model ? ["-m", o.model] : []),
      ...configArgs(o),
      ...o.extra,
      ...(thread ? ["resume", thread] : []),
      "-",
    ],
    input: (req: AgentRequest) => req.message,
    // The rollout file is read on the host side, after the request.
    parser: () => new CodexParser(state, o.model, codexHome.host),
  };
}

/**
 * Real Codex (`@openai/codex` 0.171.0): one `codex exec --json` per request, the message on stdin,
 * `resume THREAD` after the first; usage per inference step from the thread's rollout file in the
 * private CODEX_HOME.
 */
export const codexAgent = cliAgent({
  name: "codex",
  description:
    "real Codex (codex exec --json); model=, effort=minimal..xhigh|max|default (default max = xhigh), base_url= (OpenAI Responses endpoint)",
  highestEffort: codexHighestEffort,
  pkg: codexPackage,
  schema: codexOptionsSchema,
  defaultKeyEnv: "OPENAI_API_KEY",
  defaultEndpoint: "https://api.openai.com/v1",
  driver: codexDriver,
});
