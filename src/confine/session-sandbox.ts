import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { bwrapCommand, pathList, pythonPrefixes, realPythonBin, type Bind } from "./bubblewrap.js";
import type { WorkspaceName } from "../formats/sessions.js";
import { passedVariables, systemVariables } from "./passed-env.js";
import { egressInsideDir, type EgressGate } from "./egress.js";
import { taskEnvInside, type WorkspaceEnvironments } from "./task-env.js";
import { giveForeignToSandbox, giveToSandbox } from "./sandbox-user.js";

/**
 * The sandbox of one session attempt (bubblewrap). The agent's processes see a read-only system,
 * the five workspaces at `/workspace/<repository>/w00`..`w04` (the same paths in every session,
 * both conditions, any run directory, attempt or concurrency), a private writable HOME
 * (`/home/agent`, kept for the attempt) and TMPDIR, its state directory at `/state`, the programs
 * its command names (read-only), and nothing else: not the dataset, the run directory, the caches,
 * other sessions or the caller's HOME. Each request runs in a new PID namespace, so every process
 * it started (`setsid` and `nohup` daemons included) dies when the request ends. On the network it
 * reaches the model endpoints its options name and nothing else (`--network model`, egress.ts), nothing
 * (`none`), or the machine's whole network (`on`).
 */

export interface SessionSandbox {
  /** What the agent is told and sees: workspace name → path inside. */
  insidePaths: Record<WorkspaceName, string>;
  insideStateDir: string;
  /** The private HOME: its host directory (the harness writes the agent's config there and reads its logs after a request) and its path inside. */
  home: { host: string; inside: string };
  /** The host path behind an inside workspace path (for agents that act from the harness side: oracle). */
  hostPath(inside: string): string;
  /** The environment of a sandboxed command: the caller's, less anything naming the run, with HOME, TMPDIR and PATH of the inside. */
  env(extra: Record<string, string>): NodeJS.ProcessEnv;
  /** `bwrap` and its arguments that run `argv` in `cwdInside`, with read-only binds of `programs`. */
  wrap(argv: readonly string[], cwdInside: string, programs: readonly string[]): { command: string; args: string[] };
  /** `--network model`: the session's ways out (null: the network is the machine's, or none). */
  egress: EgressGate | null;
}

export interface SessionSandboxOptions {
  repo: string;
  /** Host path of each workspace. */
  workspaces: Record<WorkspaceName, string>;
  /** Host directory of the agent's state (bound at /state). */
  stateDir: string;
  /** Host directory that becomes the private HOME. */
  homeDir: string;
  /** True: the machine's network as it is (`--network on`); false: a private loopback only. */
  network: boolean;
  /** `--network model`: a private loopback whose only ways out are this gate's (egress.ts); `network` is then ignored. */
  egress?: EgressGate;
  /** The workspaces' task environments (task-env.ts), read-only inside with their python first on PATH; absent: the host's python. */
  taskEnv?: WorkspaceEnvironments;
  /** Host directory for the per-workspace python scripts when the workspaces' environments differ. */
  shimsDir?: string;
}

/** Variables of the caller that name places of the caller or of the harness; never passed in. */

export function sessionSandbox(o: SessionSandboxOptions): SessionSandbox {
  const repoDir = `/workspace/${o.repo.replace(/[^A-Za-z0-9._-]/g, "_")}`;
  const insidePaths = Object.fromEntries(Object.keys(o.workspaces).map((w) => [w, `${repoDir}/${w}`])) as Record<WorkspaceName, string>;
  const toHost = new Map(Object.entries(insidePaths).map(([w, p]) => [p, o.workspaces[w as WorkspaceName]]));
  mkdirSync(o.homeDir, { recursive: true });
  mkdirSync(o.stateDir, { recursive: true });
  // Written inside as the sandbox's user (as root: an unprivileged uid). A copy-on-write workspace already is its (overlay-workspaces.ts).
  giveToSandbox(Object.values(o.workspaces), true);
  const callerPath = process.env.PATH ?? "/usr/bin:/bin";
  const pyBin = realPythonBin(callerPath);
  const nodeBin = dirname(process.execPath);
  const taskEnv = o.taskEnv ? taskEnvInside(o.taskEnv, insidePaths, o.shimsDir ?? join(o.homeDir, "..", "task-env-bin")) : null;
  const insidePath = [...new Set([...(taskEnv?.pathPrefix ?? []), ...(pyBin ? [pyBin] : []), nodeBin, ...pathList(callerPath)])].join(":");
  // The interpreters the task environments' venvs were made from, when they lie outside the system directories.
  const envPythons = (o.taskEnv ? Object.values(o.taskEnv.envs) : []).flatMap((e) =>
    e?.pathPrefix[0] ? pythonPrefixes(join(e.pathPrefix[0], "python3"), callerPath).filter((d) => !d.startsWith(`${e.dir}/`)) : [],
  );
  const system = [...new Set([...pythonPrefixes("python3", callerPath), ...envPythons, dirname(nodeBin)])];
  return {
    egress: o.egress ?? null,
    insidePaths,
    insideStateDir: "/state",
    home: { host: o.homeDir, inside: "/home/agent" },
    hostPath: (inside) => toHost.get(inside) ?? inside,
    env: (extra) => {
      // The system variables only; whatever else the agent needs, the caller names (`env=`), in `extra`.
      const env = passedVariables(systemVariables);
      return { ...env, ...taskEnv?.vars, PATH: insidePath, HOME: "/home/agent", TMPDIR: "/tmp", ...extra, ...o.egress?.env() };
    },
    wrap: (argv, cwdInside, programs) => {
      // The harness writes the agent's configuration here between requests.
      giveForeignToSandbox([o.homeDir, o.stateDir]);
      const binds: Bind[] = [
        ...Object.entries(o.workspaces).map(([w, src]) => ({ src, dest: insidePaths[w as WorkspaceName], rw: true })),
        { src: o.homeDir, dest: "/home/agent", rw: true },
        { src: o.stateDir, dest: "/state", rw: true },
        ...programs.filter((p) => existsSync(p)).map((src) => ({ src })),
        ...(o.egress ? [{ src: o.egress.dir, dest: egressInsideDir }] : []),
        ...(taskEnv?.binds ?? []),
      ];
      const extraSystem = pathList(callerPath).filter(
        (d) => existsSync(d) && !d.startsWith("/usr") && !system.some((s) => d.startsWith(s)),
      );
      const network = o.egress ? false : o.network;
      return bwrapCommand(
        { binds, system: [...system, ...extraSystem], network, chdir: cwdInside, hidden: taskEnv?.hidden ?? [] },
        o.egress ? o.egress.wrap(argv) : argv,
      );
    },
  };
}

/** Absolute paths a shell command names that exist on the host (its program and scripts), to bind read-only. */
export function programsOf(command: string): string[] {
  const out = new Set<string>();
  for (const token of command.split(/[\s'"=;&|()<>]+/)) if (token.startsWith("/") && existsSync(token)) out.add(token);
  return [...out];
}

export const sandboxHome = (workDir: string) => join(workDir, "home");
