import { join } from "node:path";
import { z } from "zod";
import type { CliDriver } from "./cli-conversation.js";
import { cliAgent, type CliAgentOptions } from "./cli-agent.js";
import { cliEnv, cliHome, type Place } from "./cli-launch.js";
import { cliOptionFields, type CliPackage } from "./cli-options.js";
import { ClaudeCodeParser } from "./claude-code-events.js";
import { sessionRoot } from "./session-root.js";
import { effectiveEffort, effortOption } from "./effort.js";

/** Claude Code's highest `--effort`. */
export const claudeHighestEffort = "max";
import type { AgentContext, AgentRequest } from "./types.js";

const claudeOptionsSchema = z
  .object({
    ...cliOptionFields,
    /** `--effort`: low, medium, high, xhigh, max (default max, its highest; `default`: Claude Code's own). */
    effort: effortOption(["low", "medium", "high", "xhigh", "max"]),
  })
  .strict();

export type ClaudeCodeOptions = CliAgentOptions<z.infer<typeof claudeOptionsSchema>>;

export const claudePackage: CliPackage = { command: "claude", npm: "@anthropic-ai/claude-code", version: "2.1.332" };

/** The variables of one Claude Code session: endpoint, key, no telemetry or updates, config in the private HOME. */
function claudeEnv(ctx: AgentContext, o: ClaudeCodeOptions, home: Place): Record<string, string> {
  const own: Record<string, string> = {
    CLAUDE_CONFIG_DIR: join(home.inside, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
  };
  // Claude Code refuses to skip permissions as root unless it is told it runs in a sandbox.
  if (process.getuid?.() === 0) own.IS_SANDBOX = "1";
  // The SDK adds /v1/messages itself.
  if (o.base_url) own.ANTHROPIC_BASE_URL = o.base_url.replace(/\/+$/, "").replace(/\/v1$/, "");
  const key = process.env[o.api_key_env ?? "ANTHROPIC_API_KEY"];
  own.ANTHROPIC_API_KEY = key ?? "switch-swe";
  return cliEnv(ctx, home, o.pass, own);
}

/** `--effort E` as the option resolves (none for `effort=default`). */
export function effortArgs(o: Pick<ClaudeCodeOptions, "effort">): string[] {
  const effort = effectiveEffort(o.effort, claudeHighestEffort);
  return effort === null ? [] : ["--effort", effort];
}

function claudeDriver(ctx: AgentContext, o: ClaudeCodeOptions): CliDriver {
  let costBefore = 0;
  return {
    cli: "claude",
    binaryPath: o.binaryPath,
    cwd: sessionRoot(ctx, "claude-code"),
    env: claudeEnv(ctx, o, cliHome(ctx, join(ctx.stateDir, "home"))),
    args: (_req: AgentRequest, conversation: string | null) => [
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "--dangerously-skip-permissions",
      ...(o.web === "on" ? [] : ["--disallowedTools", "WebFetch,WebSearch"]),
      ...(o.model ? ["--model", o.model] : []),
      ...effortArgs(o),
      ...(conversation ? ["--resume", conversation] : ["--session-id", ctx.conversationId]),
      ...o.extra,
    ],
    input: (req: AgentRequest) => req.message,
    parser: () =>
      new ClaudeCodeParser(costBefore, (after) => {
        costBefore = after;
      }),
  };
}

/**
 * Real Claude Code (`@anthropic-ai/claude-code` 2.1.332): one `claude -p` per request, the message on
 * stdin, stream-json with raw stream events; the session id is the harness's conversation id
 * (`--session-id` on the first request, `--resume` after), in the session root.
 */
export const claudeCodeAgent = cliAgent({
  name: "claude-code",
  description:
    "real Claude Code (claude -p, stream-json); model=, effort=low..max|default (default max), base_url= (Anthropic Messages endpoint)",
  highestEffort: claudeHighestEffort,
  pkg: claudePackage,
  schema: claudeOptionsSchema,
  defaultKeyEnv: "ANTHROPIC_API_KEY",
  defaultEndpoint: "https://api.anthropic.com",
  driver: claudeDriver,
  presetConversation: true,
});
