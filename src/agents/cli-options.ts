import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { inputError } from "../core/errors.js";
import { packageRoot } from "../core/package-paths.js";
import { resolveOnPath } from "./command-path.js";
import { envNamePattern, envNames } from "./private-env.js";

/** The options every real CLI agent takes (`--agent-opt key=value`); each adapter adds its own. */
export const cliOptionFields = {
  /** The model as the CLI names it (`--model` / `-m`); default: the CLI's own default. */
  model: z.string().trim().min(1).optional(),
  /** A custom model endpoint (e.g. `switch-swe mock-model`); each CLI is pointed at it its own way. */
  base_url: z.string().url().optional(),
  /** Name of the environment variable that holds the API key (passed to the agent under the name it reads). */
  api_key_env: z.string().regex(envNamePattern, "must be a variable name").optional(),
  /** The CLI binary to run instead of the one installed with switch-swe (a path or a name on PATH). */
  bin: z.string().trim().min(1).optional(),
  /** Extra CLI arguments: words split on spaces, or a JSON list of strings. */
  arg: z.string().optional(),
  /** The CLI's own web fetch and search tools: off by default (the agent reaches its model endpoint only; docs/agents.md). */
  web: z.enum(["on", "off"]).default("off"),
  /** Variables of the caller's environment passed to the agent, comma-separated (nothing else leaks in). */
  env: z
    .string()
    .optional()
    .refine((v) => envNames(v).every((n) => envNamePattern.test(n)), "must be NAME,NAME2,… (variable names)"),
};

/** Extra arguments of `arg=`: a JSON list of strings, or words split on whitespace. */
export function extraArgs(value: string | undefined): string[] {
  if (value === undefined || value.trim() === "") return [];
  const text = value.trim();
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw inputError("--agent-opt", "arg", "starts with [ but is not a JSON list of strings");
    }
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string"))
      throw inputError("--agent-opt", "arg", "must be a JSON list of strings");
    return parsed as string[];
  }
  return text.split(/\s+/);
}

/** What an adapter needs to find its CLI. */
export interface CliPackage {
  /** The command name (`claude`, `codex`, `gemini`). */
  command: string;
  /** The npm package and version this adapter is made for. */
  npm: string;
  version: string;
}

/**
 * The binary to run: `bin=` (a path or a name on PATH), else the copy installed with switch-swe,
 * else the command on PATH. A CLI that cannot be found is bad input naming the package to install.
 */
export function findCli(pkg: CliPackage, bin: string | undefined): string {
  if (bin !== undefined) {
    const found = resolveOnPath(bin);
    if (found === null) throw inputError("--agent-opt", "bin", `${bin} not found or not executable`);
    return found;
  }
  const found = locateCli(pkg);
  if (found !== null) return found;
  throw inputError(
    "--agent-opt",
    "bin",
    `${pkg.command} not found: install it with npm install -g ${pkg.npm}@${pkg.version} (or give bin=PATH)`,
  );
}

/** The copy installed with switch-swe, else the command on PATH, else null. */
export function locateCli(pkg: CliPackage): string | null {
  const bundled = join(packageRoot, "node_modules", ".bin", pkg.command);
  return existsSync(bundled) ? bundled : resolveOnPath(pkg.command);
}

/** Checks that the variables the agent needs from the caller are set (a missing key is bad input now, not a failed run later). */
export function requireVariables(names: readonly string[], option: string, env: NodeJS.ProcessEnv = process.env): void {
  for (const name of names) {
    if (env[name] === undefined) throw inputError("--agent-opt", option, `${name} is not set`);
  }
}
