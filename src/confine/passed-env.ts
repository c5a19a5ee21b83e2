/**
 * Variables every agent process gets from the harness's own environment: how to find programs and
 * how to render text. Nothing that carries identity, credentials or configuration (HOME, tokens,
 * proxies, XDG dirs, tool settings) is passed unless the caller names it (`--agent-opt env=…`).
 */
export const systemVariables = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "TMPDIR", "SHELL", "USER", "LOGNAME"] as const;

/** The named variables that are set in `from`, for an environment built elsewhere (the sandbox). */
export function passedVariables(names: readonly string[], from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) if (from[name] !== undefined) env[name] = from[name];
  return env;
}
