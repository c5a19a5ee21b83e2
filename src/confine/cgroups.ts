import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatSize, resources, type Limits, type Resource } from "./limits.js";

/**
 * Resource limits through Linux control groups, v1 (one hierarchy per controller under
 * /sys/fs/cgroup/{cpu,memory,pids}) or v2 (one unified hierarchy, where /sys/fs/cgroup holds
 * `cgroup.controllers`). A group is made below the harness's own group, its limits written, and
 * each limited program started through a tiny shell wrapper that writes its own pid into the
 * group's `cgroup.procs` and then execs the program: nothing runs before it is in the group, and
 * every process it starts inherits the group. `remove` kills what is left and removes the group.
 */

export interface ResourceRecord {
  /** The limit as given (`4`, `16g`, `1024`), or null when not limited. */
  limit: string | null;
  status: "enforced" | "not_enforced";
  /** How it is enforced, or why not. */
  detail: string;
}

export type LimitsRecord = Record<Resource, ResourceRecord>;

export interface ProcessCgroup {
  record: LimitsRecord;
  /** `command args` started inside the group (unchanged when nothing is enforced). */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Processes the kernel's OOM killer ended in this group so far. */
  oomKills(): number;
  /** Kills whatever still runs in the group and removes it. */
  remove(): Promise<void>;
}

const root = "/sys/fs/cgroup";
const controllerOf: Record<Resource, string> = { cpus: "cpu", memory: "memory", pids: "pids" };
const period = 100_000;
const prefix = `switch-swe-${process.pid}-`;
let counter = 0;

const isV2 = () => existsSync(join(root, "cgroup.controllers"));

/** The harness's own group in a hierarchy (`0::` for v2, else the line naming the controller), where it exists in the mount. */
function ownDir(controller: string | null): string {
  const mount = controller === null ? root : join(root, controller);
  let own = "/";
  try {
    for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, ctls, path] = line.split(":");
      if (path === undefined) continue;
      if (controller === null ? line.startsWith("0::") : ctls!.split(",").includes(controller)) own = path;
    }
  } catch {
    own = "/";
  }
  const dir = join(mount, own);
  return existsSync(join(dir, "cgroup.procs")) ? dir : mount;
}

/** The v1 files that set a limit (written in order; memsw, the memory+swap limit, only where the kernel counts swap). */
function v1Writes(r: Resource, value: number, dir: string): [string, string][] {
  if (r === "cpus")
    return [
      ["cpu.cfs_period_us", String(period)],
      ["cpu.cfs_quota_us", String(Math.max(1000, Math.round(value * period)))],
    ];
  if (r === "pids") return [["pids.max", String(value)]];
  return [
    ["memory.limit_in_bytes", String(value)],
    ...(existsSync(join(dir, "memory.memsw.limit_in_bytes")) ? [["memory.memsw.limit_in_bytes", String(value)] as [string, string]] : []),
  ];
}

function v2Writes(r: Resource, value: number, dir: string): [string, string][] {
  if (r === "cpus") return [["cpu.max", `${Math.max(1000, Math.round(value * period))} ${period}`]];
  if (r === "pids") return [["pids.max", String(value)]];
  return [
    ["memory.max", String(value)],
    ...(existsSync(join(dir, "memory.swap.max")) ? [["memory.swap.max", "0"] as [string, string]] : []),
  ];
}

function why(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === "EACCES" || err.code === "EPERM") return `not permitted (${err.code}): run as root or in a delegated cgroup`;
  if (err.code === "EROFS") return "the cgroup file system is read-only here (a container without cgroup access)";
  return err.code ?? err.message;
}

/** In v2 a child can use a controller only when its parent enables it in `cgroup.subtree_control`. */
function v2Enable(parent: string, controller: string): string | null {
  const available = readFileSync(join(parent, "cgroup.controllers"), "utf8").split(/\s+/);
  if (!available.includes(controller)) return `cgroup v2: the ${controller} controller is not delegated to ${parent}`;
  if (readFileSync(join(parent, "cgroup.subtree_control"), "utf8").split(/\s+/).includes(controller)) return null;
  try {
    writeFileSync(join(parent, "cgroup.subtree_control"), `+${controller}`);
    return null;
  } catch (e) {
    return `cgroup v2 delegation missing: cannot enable ${controller} in ${parent}/cgroup.subtree_control (${why(e)})`;
  }
}

interface Made {
  dirs: string[];
  record: LimitsRecord;
  oomFile: string | null;
}

/** Makes the group in each hierarchy a limited resource needs; records per resource what holds. */
function makeGroups(limits: Limits, name: string): Made {
  const v2 = isV2();
  const dirs = new Map<string, string>();
  const record = {} as LimitsRecord;
  let oomFile: string | null = null;
  for (const r of resources) {
    const value = limits[r];
    const limit = value === null ? null : r === "memory" ? formatSize(value) : String(value);
    if (value === null) {
      record[r] = { limit, status: "not_enforced", detail: "not limited (--limits)" };
      continue;
    }
    const controller = controllerOf[r];
    try {
      const parent = ownDir(v2 ? null : controller);
      if (!v2 && !existsSync(join(root, controller, "cgroup.procs")))
        throw new Error(`no cgroup v1 ${controller} controller at ${join(root, controller)} (and ${root} is not cgroup v2)`);
      const problem = v2 ? v2Enable(parent, controller) : null;
      if (problem) throw new Error(problem);
      const dir = join(parent, name);
      if (!dirs.has(dir)) mkdirSync(dir);
      dirs.set(dir, dir);
      for (const [file, text] of (v2 ? v2Writes : v1Writes)(r, value, dir)) writeFileSync(join(dir, file), text);
      if (r === "memory") oomFile = join(dir, v2 ? "memory.events" : "memory.oom_control");
      record[r] = { limit, status: "enforced", detail: `cgroup ${v2 ? "v2" : "v1"} ${controller} controller` };
    } catch (e) {
      record[r] = {
        limit,
        status: "not_enforced",
        detail: e instanceof Error && !(e as NodeJS.ErrnoException).code ? e.message : `cannot make a ${controller} cgroup: ${why(e)}`,
      };
    }
  }
  return { dirs: [...dirs.values()], record, oomFile };
}

const enterScript =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "switch-swe: cannot enter the cgroup $1" >&2; exit 126; }; shift; done; shift; exec "$@"';

function procsOf(dir: string): number[] {
  try {
    return readFileSync(join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  } catch {
    return [];
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Kills every process of a group until it is empty, then removes it (a few tries: the kernel frees it a moment after the last exit). */
async function removeGroup(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (let i = 0; i < 100; i++) {
    const pids = procsOf(dir);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw e;
    }
    await sleep(i < 10 ? 10 : 50);
  }
  throw new Error(`cannot remove the cgroup ${dir}: processes are still in it`);
}

function readOomKills(file: string | null): number {
  if (file === null) return 0;
  try {
    const m = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * A group with `limits` for one session or one test run. Resources that cannot be limited here are
 * recorded as not enforced with the reason; nothing fails because of them.
 */
export function createCgroup(limits: Limits): ProcessCgroup {
  sweepStale();
  const made = makeGroups(limits, `${prefix}${++counter}`);
  const procs = made.dirs.map((d) => join(d, "cgroup.procs"));
  return {
    record: made.record,
    wrap: (command, args) =>
      procs.length === 0
        ? { command, args: [...args] }
        : { command: "/bin/sh", args: ["-c", enterScript, "switch-swe-cgroup", ...procs, "--", command, ...args] },
    oomKills: () => readOomKills(made.oomFile),
    remove: async () => {
      for (const d of made.dirs) await removeGroup(d);
    },
  };
}

/** What `limits` would get here: a group made and removed at once (for run.json, before any session). */
export function probeLimits(limits: Limits): LimitsRecord {
  sweepStale();
  const made = makeGroups(limits, `${prefix}${++counter}`);
  for (const d of made.dirs) rmdirSync(d);
  return made.record;
}

let swept = false;

/**
 * Empty groups left by a harness process that died (its pid is gone) are removed. Groups that still
 * hold processes are left alone: the pid may belong to another pid namespace sharing this hierarchy.
 */
function sweepStale(): void {
  if (swept) return;
  swept = true;
  const parents = isV2() ? [ownDir(null)] : Object.values(controllerOf).map((c) => ownDir(c));
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent).filter((n) => /^switch-swe-\d+-\d+$/.test(n));
    } catch {
      continue;
    }
    for (const n of names) {
      const pid = Number(n.split("-")[2]);
      if (pid === process.pid || alive(pid)) continue;
      try {
        rmdirSync(join(parent, n));
      } catch {
        // not empty, or not ours to remove
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** One line for logs: `cpus=4 enforced (cgroup v1 cpu controller); memory=16g not enforced: ...`. */
export function describeLimits(record: LimitsRecord): string {
  return resources
    .map((r) => {
      const x = record[r];
      return x.limit === null
        ? `${r}: not limited`
        : `${r}=${x.limit} ${x.status === "enforced" ? `enforced (${x.detail})` : `not enforced: ${x.detail}`}`;
    })
    .join("; ");
}
