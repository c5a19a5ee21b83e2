import type { z } from "zod";
import { CliConversation, type CliDriver } from "./cli-conversation.js";
import { extraArgs, findCli, requireVariables, type CliPackage } from "./cli-options.js";
import { cliVersion } from "./harness-version.js";
import { validateAgentOptions } from "./options.js";
import { envNames } from "./private-env.js";
import { effectiveEffort } from "./effort.js";
import type { Agent, AgentContext, AgentFactory } from "./types.js";

/** The options every real CLI agent shares (cli-options.ts `cliOptionFields`), as parsed. */
interface CommonOptions {
  model?: string | undefined;
  base_url?: string | undefined;
  api_key_env?: string | undefined;
  bin?: string | undefined;
  arg?: string | undefined;
  env?: string | undefined;
  effort?: string | undefined;
  web?: "on" | "off" | undefined;
}

/** An adapter's parsed options plus what parsing found: the binary, the extra arguments, the variables passed in. */
export type CliAgentOptions<T> = T & { binaryPath: string; extra: string[]; pass: string[] };

/** What distinguishes one CLI agent (Claude Code, Codex, Gemini CLI) from the others. */
export interface CliAgentSpec<S extends z.ZodType<CommonOptions>> {
  name: string;
  description: string;
  pkg: CliPackage;
  schema: S;
  /** The variable that holds the API key when `api_key_env` is not given (required unless `base_url` is). */
  defaultKeyEnv: string;
  /** The model endpoint the CLI calls when `base_url` is not given (what `--network model` lets it reach). */
  defaultEndpoint: string;
  /** How one request of this CLI runs, for a session. */
  driver(ctx: AgentContext, o: CliAgentOptions<z.output<S>>): CliDriver;
  /** The CLI's highest reasoning effort, what `effort=max` (the default) sends; absent: the CLI has no effort setting. */
  highestEffort?: string;
  /** True when the CLI takes the harness's conversation id up front (`--session-id`). */
  presetConversation?: boolean;
}

/**
 * An agent factory for a real CLI: options checked against the adapter's schema, the binary found
 * (bad input naming the npm package when it is missing), the key and named variables checked to be
 * set, one CliConversation per session, and run.json's harness record from the CLI's own `--version`.
 */
export function cliAgent<S extends z.ZodType<CommonOptions>>(spec: CliAgentSpec<S>): AgentFactory<CliAgentOptions<z.output<S>>> {
  return {
    name: spec.name,
    description: spec.description,
    capabilities: { confinable: true, limits: true, harnessSide: false, cli: spec.pkg, submission: "agent" },
    parse: (options) => {
      const parsed = validateAgentOptions(spec.name, spec.schema, options);
      const binaryPath = findCli(spec.pkg, parsed.bin);
      const pass = envNames(parsed.env);
      requireVariables(pass, "env");
      if (parsed.api_key_env) requireVariables([parsed.api_key_env], "api_key_env");
      else if (!parsed.base_url) requireVariables([spec.defaultKeyEnv], "api_key_env");
      return { ...parsed, binaryPath, extra: extraArgs(parsed.arg), pass };
    },
    create: (o): Agent => ({
      name: spec.name,
      endpoints: [o.base_url ?? spec.defaultEndpoint],
      startConversation: async (ctx) => new CliConversation(ctx, spec.driver(ctx, o), spec.presetConversation ? ctx.conversationId : null),
      describe: async () => ({
        name: spec.name,
        package: spec.pkg.npm,
        version: await cliVersion(o.binaryPath),
        binary: o.binaryPath,
        model: o.model ?? null,
        effort: spec.highestEffort === undefined ? null : effectiveEffort(o.effort, spec.highestEffort),
      }),
    }),
  };
}
