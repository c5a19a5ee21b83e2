/** Variables every worker keeps: what git, Python and the agents' shells need to run at all. */
export const baseEnvNames = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "TERM",
  "SWITCH_SWE_CACHE",
];

/**
 * Removes from this process's environment every variable not named (the agents inherit it): a worker
 * passes on only what it was told to. Returns the names removed.
 */
export function scrubEnvironment(keep: readonly string[]): string[] {
  const allowed = new Set([...baseEnvNames, ...keep]);
  const removed: string[] = [];
  for (const name of Object.keys(process.env)) {
    if (!allowed.has(name)) {
      delete process.env[name];
      removed.push(name);
    }
  }
  return removed.sort();
}
