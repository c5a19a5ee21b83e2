import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Bind } from "./bubblewrap.js";
import type { WorkspaceName } from "../formats/sessions.js";
import { workspaceNames } from "../formats/sessions.js";

/** One task environment as the verifier uses it (testbed/env-cache.ts PreparedEnv, without the cache facts). */
export interface TaskEnv {
  /** The environment directory (`<cache>/envs/<key>`). */
  dir: string;
  /** Its `venv/bin` and `bin`, in front of PATH. */
  pathPrefix: readonly string[];
  /** SWITCH_SWE_ENV, VIRTUAL_ENV. */
  vars: Readonly<Record<string, string>>;
}

/** Each workspace's task environment (null: its task has no set-up, the host's python), and the test command's PYTHONPATH. */
export interface WorkspaceEnvironments {
  envs: Record<WorkspaceName, TaskEnv | null>;
  pythonPath: string | null;
}

/** What the sandbox adds for the task environments. */
export interface TaskEnvInside {
  binds: Bind[];
  /** Directories hidden under an empty tmpfs, after the binds. */
  hidden: string[];
  pathPrefix: string[];
  vars: Record<string, string>;
}

/** Where the per-workspace programs appear inside when the workspaces' environments differ. */
const shimsInside = "/task-env/bin";
const programs = ["python", "python3", "pytest"] as const;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The task environments inside the agent's sandbox. Each is bound read-only at its own path (a venv
 * names itself by absolute path), with its set-up checkout hidden: a variant's set-up commit may be
 * later than a task's base. One environment for every workspace: its bin goes first on PATH, as in the
 * verifier's test runs. Several: `python`, `python3` and `pytest` are small scripts that choose by the
 * working directory (the workspace the agent is in), so no workspace is singled out.
 */
export function taskEnvInside(w: WorkspaceEnvironments, insidePaths: Record<WorkspaceName, string>, shimsHost: string): TaskEnvInside {
  const distinct = [...new Map(workspaceNames.flatMap((n) => (w.envs[n] ? [[w.envs[n]!.dir, w.envs[n]!] as const] : []))).values()];
  // Relative, like the test command's: resolved against the directory python starts in. Bytecode is not
  // written into the workspaces (it would join the artifact), as in the verifier's test runs.
  const vars: Record<string, string> = {
    ...(w.pythonPath !== null ? { PYTHONPATH: w.pythonPath } : {}),
    ...(distinct.length > 0 ? { PYTHONDONTWRITEBYTECODE: "1" } : {}),
  };
  const binds: Bind[] = distinct.map((e) => ({ src: e.dir }));
  const hidden = distinct.map((e) => join(e.dir, "checkout"));
  const everywhere = distinct.length === 1 && workspaceNames.every((n) => w.envs[n] !== null);
  if (distinct.length === 0) return { binds, hidden, pathPrefix: [], vars };
  if (everywhere) return { binds, hidden, pathPrefix: [...distinct[0]!.pathPrefix], vars: { ...distinct[0]!.vars, ...vars } };
  mkdirSync(shimsHost, { recursive: true });
  for (const program of programs) writeFileSync(join(shimsHost, program), shim(program, w, insidePaths), { mode: 0o755 });
  return { binds: [...binds, { src: shimsHost, dest: shimsInside }], hidden, pathPrefix: [shimsInside], vars };
}

/** A script that runs `program` of the environment of the workspace the working directory is in (else the host's). */
function shim(program: (typeof programs)[number], w: WorkspaceEnvironments, insidePaths: Record<WorkspaceName, string>): string {
  const hostRun = program === "pytest" ? `python3 -m pytest "$@"` : `${program} "$@"`;
  const cases = workspaceNames.map((n) => {
    const env = w.envs[n];
    const bin = env?.pathPrefix[0];
    // The shim's own directory leaves PATH, so that a host program is found and the shim never calls itself.
    const run = bin
      ? `exec ${quote(join(bin, program === "pytest" ? "python" : program))}${program === "pytest" ? " -m pytest" : ""} "$@"`
      : `PATH=$(printf %s "$PATH" | sed 's#${shimsInside}:##'); exec ${hostRun}`;
    return `  ${quote(insidePaths[n])}|${quote(insidePaths[n])}/*) ${run} ;;`;
  });
  return [
    `#!/bin/sh`,
    `# ${program} of the task environment of the workspace this runs in (switch-swe).`,
    `case "$PWD" in`,
    ...cases,
    `esac`,
    `PATH=$(printf %s "$PATH" | sed 's#${shimsInside}:##'); exec ${hostRun}`,
    "",
  ].join("\n");
}
