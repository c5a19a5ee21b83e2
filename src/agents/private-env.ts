import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { systemVariables } from "../confine/passed-env.js";

/** A private HOME and XDG directories under `dir`, created; the variables that point at them. */
export function privateHome(dir: string): Record<string, string> {
  const dirs = {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_DATA_HOME: join(dir, ".local", "share"),
    XDG_STATE_HOME: join(dir, ".local", "state"),
    XDG_CACHE_HOME: join(dir, ".cache"),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  return dirs;
}

/**
 * The whole environment of one agent session: the system variables, the variables the caller named
 * (that are set), a private HOME with XDG directories, then the agent's own settings (which win).
 */
export function agentEnv(
  home: string,
  passThrough: readonly string[],
  own: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...systemVariables, ...passThrough]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...privateHome(home), ...own };
}

/** `env=NAME,NAME2` as a list of names (empty when not given). */
export function envNames(value: string | undefined): string[] {
  if (value === undefined || value.trim() === "") return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
