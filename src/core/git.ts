import { runChecked, runProcess, type RunOptions, type RunResult } from "./process.js";

/** A fixed identity and clock, so commits the harness makes are byte-identical across machines. */
export const fixedCommitEnv = {
  GIT_AUTHOR_NAME: "switch-swe",
  GIT_AUTHOR_EMAIL: "switch-swe@localhost",
  GIT_COMMITTER_NAME: "switch-swe",
  GIT_COMMITTER_EMAIL: "switch-swe@localhost",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};

function gitEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // The user's global config (hooks, templates, signing) must not change what the harness does.
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    ...fixedCommitEnv,
    ...extra,
  };
}

/**
 * Trees a sandbox wrote belong to the sandbox's user (src/confine/sandbox-user.ts), which git's
 * ownership check would refuse ("dubious ownership"). The check guards against a repository's own
 * configuration; the harness's git commands name their repository and keep their settings on the
 * command line, so it is turned off here (a command-line setting, which git honours for it).
 */
const ownershipCheckOff = ["-c", "safe.directory=*"];

/** Runs git and throws when it fails. */
export function git(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return runChecked("git", [...ownershipCheckOff, ...args], { ...opts, env: gitEnv(opts.env) });
}

/** Runs git and returns its result whatever the exit code. */
export function gitTry(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return runProcess("git", [...ownershipCheckOff, ...args], { ...opts, env: gitEnv(opts.env) });
}

export async function gitOut(args: readonly string[], opts: RunOptions = {}): Promise<string> {
  return (await git(args, opts)).stdout.trim();
}
