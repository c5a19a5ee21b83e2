import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { sha256 } from "../core/digest.js";
import { dropArgv, sandboxOwner } from "./sandbox-user.js";
import { seccompProgram } from "./seccomp.js";

/**
 * Bubblewrap sandboxes (https://github.com/containers/bubblewrap, Debian package `bubblewrap`).
 * Inside: a read-only system (/usr, /etc and the interpreter prefixes it is told about), fresh
 * /proc, /dev and /tmp, the binds it is given, and nothing else of the machine: not the caller's
 * HOME, not the dataset, the run directory or the caches. A new PID namespace: when the sandboxed
 * command ends or is killed, every process in it dies, `setsid` daemons included. Optionally no
 * network (only a private `lo`).
 *
 * Nothing inside is host root or holds a capability in the machine's user namespace, even when the
 * harness runs as root (CI, containers): as root, the command is dropped to an unprivileged host uid
 * before it starts (sandbox-user.ts; a user namespace would only map root to another name); otherwise
 * the sandbox gets its own user namespace mapped to uid/gid 1000. Every capability is dropped, a
 * syscall filter (seccomp.ts) refuses file handles, mounts, namespaces, io_uring, ptrace and kernel
 * loading, /proc/sys and the other kernel knobs of /proc are read-only, binds are nosuid. Which of the three this machine can apply is probed once per process
 * (`sandboxHardening`); run.json records it. The backend that uses them is bwrap.ts.
 */

export interface Bind {
  src: string;
  /** Where it appears inside (default: the same path). */
  dest?: string;
  rw?: boolean;
}

export interface SandboxSpec {
  binds: readonly Bind[];
  /** Extra read-only directories of the system (interpreter prefixes outside /usr). */
  system?: readonly string[];
  network: boolean;
  chdir: string;
  /** Directories that are empty and writable inside (tmpfs), e.g. a private HOME. */
  tmpfs?: readonly string[];
  /** Directories inside the binds hidden under an empty tmpfs (mounted after the binds). */
  hidden?: readonly string[];
}

const systemDirs = ["/usr", "/etc", "/opt"];
const topLinks = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** What of the hardening to put on the command line. */
interface Hardening {
  userns: boolean;
  capDrop: boolean;
  /** `--seccomp` reads the filter from this descriptor (opened by the wrapper of bwrapCommand). */
  seccompFd: number | null;
  /** The host uid/gid the command is dropped to before it starts (a root caller: sandbox-user.ts), in place of a user namespace. */
  dropTo: number | null;
}

const none: Hardening = { userns: false, capDrop: false, seccompFd: null, dropTo: null };
/** The descriptor the filter is handed on (fd 3 is the verifier's outcome channel). */
const seccompFd = 9;
/** The unprivileged ids the sandbox's own user namespace maps the caller to. */
export const insideId = 1000;

/** The parts of /proc container runtimes keep read-only: kernel settings, the magic SysRq key, interrupts, buses. */
const readOnlyProc = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/asound"];

function hardeningArgs(h: Hardening): string[] {
  return [
    ...(h.userns && h.dropTo === null ? ["--unshare-user", "--uid", String(insideId), "--gid", String(insideId)] : []),
    // A dropped command loses every capability with its uid (setpriv); bwrap must keep them to drop it.
    ...(h.capDrop && h.dropTo === null ? ["--cap-drop", "ALL"] : []),
    ...(h.seccompFd !== null ? ["--seccomp", String(h.seccompFd)] : []),
  ];
}

/** Arguments for `bwrap` that run `argv` in the sandbox `spec` (without hardening: see bwrapCommand). */
export function bwrapArgs(spec: SandboxSpec, argv: readonly string[], h: Hardening = none): string[] {
  const a = [
    "--die-with-parent",
    ...hardeningArgs(h),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--new-session",
  ];
  if (!spec.network) a.push("--unshare-net");
  const bound: string[] = [];
  const bind = (flag: string, src: string, dest: string) => {
    a.push(flag, src, dest);
    bound.push(dest);
  };
  for (const d of systemDirs) if (existsSync(d)) bind("--ro-bind", d, d);
  for (const l of topLinks) {
    if (!existsSync(l)) continue;
    const st = lstatSync(l);
    if (st.isSymbolicLink()) a.push("--symlink", readlinkSync(l), l);
    else bind("--ro-bind", l, l);
  }
  a.push("--proc", "/proc");
  for (const p of readOnlyProc) a.push("--ro-bind-try", p, p);
  // /tmp writable by the sandbox's user whatever its id (sticky, as on the host).
  a.push("--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", "/var");
  for (const d of spec.system ?? []) if (existsSync(d)) bind("--ro-bind", d, d);
  for (const t of spec.tmpfs ?? []) a.push("--perms", "1777", "--tmpfs", t);
  for (const b of spec.binds) bind(b.rw ? "--bind" : "--ro-bind", b.src, b.dest ?? b.src);
  for (const h of spec.hidden ?? []) if (existsSync(h)) a.push("--tmpfs", h);
  const tmpfs = ["/tmp", "/run", "/var", ...(spec.tmpfs ?? []), ...(spec.hidden ?? [])];
  if (h.dropTo !== null) for (const d of createdParents(bound, tmpfs)) a.push("--chmod", "0755", d);
  a.push("--chdir", spec.chdir, "--", ...(h.dropTo !== null ? dropArgv(h.dropTo, argv) : argv));
  return a;
}

/**
 * The directories bwrap makes in its own root to hold the mount points `dests` (never one inside a
 * bind: that is the host's). bwrap copies the host directory's mode (`/root` is 0700), which would
 * keep a dropped user from reaching what is bound below (a python under /root/.pyenv).
 */
export function createdParents(dests: readonly string[], tmpfs: readonly string[]): string[] {
  // A tmpfs keeps the mode it was given (/tmp: 1777).
  const inBind = (d: string) => tmpfs.includes(d) || dests.some((b) => d === b || d.startsWith(`${b}/`));
  const out = new Set<string>();
  for (const dest of dests) {
    const parts = dest.split("/").filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join("/")}`;
      if (!inBind(dir)) out.add(dir);
    }
  }
  return [...out];
}

let probed: string | null | undefined;
let version: string | null | undefined;

/** bwrap's own version (`bwrap --version`), or null when it does not answer (asked once per process). */
export function bwrapVersion(): string | null {
  if (version !== undefined) return version;
  try {
    version =
      /\d+\.\d+(\.\d+)?/.exec(execFileSync("bwrap", ["--version"], { encoding: "utf8", stdio: "pipe", timeout: 30_000 }))?.[0] ?? null;
  } catch {
    version = null;
  }
  return version;
}

/** Null when bubblewrap can start a sandbox here, else why not (probed once per process). */
export function bwrapProblem(): string | null {
  if (probed !== undefined) return probed;
  try {
    execFileSync("bwrap", bwrapArgs({ binds: [], network: false, chdir: "/" }, ["/bin/true"]), { stdio: "pipe", timeout: 30_000 });
    probed = null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    probed =
      err.code === "ENOENT"
        ? "bwrap is not installed (Debian: apt-get install bubblewrap)"
        : `bwrap cannot start a sandbox here: ${(err.stderr?.toString() ?? err.message).trim().slice(0, 300)}`;
  }
  return probed;
}

/** One measure of confinement: applied here or not, in words. */
export interface HardeningPart {
  applied: boolean;
  detail: string;
}

export interface SandboxHardening {
  /** Which host uid sandbox processes run as: applied when it is not root. */
  host_user: HardeningPart;
  user_namespace: HardeningPart;
  capabilities: HardeningPart;
  syscall_filter: HardeningPart;
}

let hardening: { record: SandboxHardening; flags: Hardening } | undefined;
let filterFile: string | undefined;

/**
 * The compiled filter as a file bwrap's wrapper opens: one per filter version in this user's private
 * directory (`$TMPDIR/switch-swe-seccomp-<uid>/`, mode 0700, checked to be ours), so that processes
 * killed without their exit handlers leave nothing new behind; a private directory of this process
 * otherwise.
 */
function seccompFile(): string {
  if (filterFile) return filterFile;
  const program = seccompProgram();
  const uid = process.getuid?.() ?? -1;
  let dir = join(tmpdir(), `switch-swe-seccomp-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) throw new Error("not private");
  } catch {
    dir = mkdtempSync(join(tmpdir(), "switch-swe-seccomp-"));
    const made = dir;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  const file = join(dir, `${sha256(program).slice(0, 16)}.bpf`);
  if (!existsSync(file) || !readFileSync(file).equals(program)) {
    const part = `${file}.${process.pid}`;
    writeFileSync(part, program, { mode: 0o600 });
    renameSync(part, file);
  }
  filterFile = file;
  return file;
}

/** What `/proc/self/status` says inside a sandbox started with `h`, or why it did not start. */
function probeInside(h: Hardening): { capEff: string; seccomp: string; uid: string; uidMap: string } | string {
  const script = 'grep -E "^(CapEff|Seccomp|Uid):" /proc/self/status; cat /proc/self/uid_map';
  try {
    const cmd = bwrapCommand({ binds: [], network: false, chdir: "/" }, ["/bin/sh", "-c", script], h);
    const out = execFileSync(cmd.command, cmd.args, { stdio: "pipe", timeout: 30_000, encoding: "utf8" });
    const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, "m").exec(out)?.[1] ?? "?";
    return {
      capEff: field("CapEff"),
      seccomp: field("Seccomp"),
      uid: field("Uid"),
      uidMap: out
        .split("\n")
        .filter((l) => /^\s*\d/.test(l))
        .join("; ")
        .replace(/\s+/g, " ")
        .trim(),
    };
  } catch (e) {
    const err = e as Error & { stderr?: Buffer | string };
    return (err.stderr?.toString() ?? err.message).trim().split("\n")[0]!.slice(0, 200);
  }
}

/**
 * What this machine can apply of the hardening (probed once per process, each part on its own so
 * that one missing part does not take the others with it), and the flags that apply it. The parts
 * are checked from inside: the host uid, CapEff 0, `Seccomp: 2`, a uid map that is not the machine's.
 */
export function sandboxHardening(): SandboxHardening {
  return probeHardening().record;
}

/** The hardening in a few words, for logs: what holds, and what this machine could not apply. */
export function hardeningSummary(): string {
  const h = sandboxHardening();
  const dropped = probeHardening().flags.dropTo !== null;
  const named: Array<[HardeningPart, string]> = [
    [h.host_user, `host uid ${hostUidWords()}`],
    ...(dropped ? [] : ([[h.user_namespace, `own user namespace (uid ${insideId})`]] as Array<[HardeningPart, string]>)),
    [h.capabilities, "no capabilities"],
    [h.syscall_filter, "syscall filter"],
  ];
  return named.map(([p, name]) => (p.applied ? name : `NOT ${name}`)).join(", ");
}

/** The host uid of every sandbox process, in words. */
function hostUidWords(): string {
  const drop = probeHardening().flags.dropTo;
  return drop !== null ? String(drop) : `${process.getuid?.() ?? "?"} (the caller's)`;
}

const filterWords =
  "seccomp filter: file handles, mounts, namespaces (clone with CLONE_NEW*, unshare, setns), io_uring, ptrace, process_vm_readv/writev, kcmp, pidfd_getfd, personality changes, kernel modules, bpf, perf, keyrings, clock and reboot calls refused (EPERM); clone3 ENOSYS; other ABIs killed";

/** As root: the drop to the sandbox user (sandbox-user.ts), checked from inside; null when the caller is not root. */
function probeDrop(owner: number | null): { host: HardeningPart; userns: HardeningPart } | null {
  if (owner === null) return null;
  const d = probeInside({ ...none, dropTo: owner });
  if (typeof d === "string" || d.uid !== String(owner)) return null;
  return {
    host: {
      applied: true,
      detail: `every sandbox process runs as host uid/gid ${owner} (no account; dropped with setpriv before the command starts), never root: /proc/sys, root's files and set-uid are out of its reach; what it makes belongs to ${owner}`,
    },
    userns: {
      applied: true,
      detail: `not needed: the harness runs as root and every sandbox process is host uid ${owner}, not a namespace's view of root`,
    },
  };
}

function probeHardening(): { record: SandboxHardening; flags: Hardening } {
  if (hardening) return hardening;
  const problem = bwrapProblem();
  if (problem) {
    const no = { applied: false, detail: problem };
    hardening = { record: { host_user: no, user_namespace: no, capabilities: no, syscall_filter: no }, flags: none };
    return hardening;
  }
  const root = process.getuid?.() === 0;
  const drop = probeDrop(sandboxOwner());
  const dropTo = drop ? sandboxOwner() : null;
  const u = drop ? null : probeInside({ ...none, userns: true });
  const userns: HardeningPart =
    drop?.userns ??
    (u === null || typeof u === "string" || !u.uidMap.startsWith(`${insideId} `)
      ? {
          applied: false,
          detail: `no user namespace can be made here (${typeof u === "string" ? u : `uid_map ${u?.uidMap ?? "?"}`}): processes inside keep the caller's ids${root ? " (root)" : ""}`,
        }
      : { applied: true, detail: `own user namespace, the caller mapped to uid/gid ${insideId} (uid_map: ${u.uidMap})` });
  const host: HardeningPart =
    drop?.host ??
    (root
      ? {
          applied: false,
          detail: `sandbox processes are host root behind their user namespace (${setprivMissing()}): /proc/sys is read-only but files they make belong to root`,
        }
      : { applied: true, detail: `sandbox processes run as the caller, host uid ${process.getuid?.() ?? "?"} (not root)` });
  const base = { ...none, userns: !drop && userns.applied, dropTo };
  const c = probeInside({ ...base, capDrop: true });
  const caps: HardeningPart =
    typeof c === "string" || !/^0+$/.test(c.capEff)
      ? { applied: false, detail: `capabilities could not be dropped (${typeof c === "string" ? c : `CapEff ${c.capEff}`})` }
      : { applied: true, detail: "all capabilities dropped (CapEff 0)" };
  const f = probeInside({ ...base, capDrop: caps.applied, seccompFd: seccompFd });
  const filter: HardeningPart =
    typeof f === "string" || f.seccomp !== "2"
      ? { applied: false, detail: `the syscall filter could not be loaded (${typeof f === "string" ? f : `Seccomp ${f.seccomp}`})` }
      : { applied: true, detail: filterWords };
  hardening = {
    record: { host_user: host, user_namespace: userns, capabilities: caps, syscall_filter: filter },
    flags: { ...base, capDrop: caps.applied, seccompFd: filter.applied ? seccompFd : null },
  };
  return hardening;
}

function setprivMissing(): string {
  return sandboxOwner() === null ? "no setpriv (util-linux) to drop to an unprivileged uid" : "the drop to an unprivileged uid failed";
}

/**
 * The command that runs `argv` in the sandbox `spec`, hardened with what this machine can apply
 * (or `h`). With a syscall filter, a shell opens the filter file on the descriptor `--seccomp`
 * names and becomes bwrap (the descriptor is bwrap's only: it reads and closes it before the
 * command starts), so every caller and wrapper (cgroups) passes it on unchanged.
 */
export function bwrapCommand(
  spec: SandboxSpec,
  argv: readonly string[],
  h: Hardening = probeHardening().flags,
): { command: string; args: string[] } {
  const args = bwrapArgs(spec, argv, h);
  if (h.seccompFd === null) return { command: "bwrap", args };
  return { command: "/bin/sh", args: ["-c", `exec bwrap "$@" ${h.seccompFd}<"$0"`, seccompFile(), ...args] };
}

const prefixes = new Map<string, string[]>();

/**
 * The directories a Python interpreter needs inside a sandbox (its prefix and base prefix) when
 * they lie outside the system directories, e.g. a pyenv install under the caller's HOME.
 */
export function pythonPrefixes(python: string, pathEnv: string): string[] {
  const key = `${python}\u0000${pathEnv}`;
  const cached = prefixes.get(key);
  if (cached) return cached;
  let dirs: string[] = [];
  try {
    const out = execFileSync(python, ["-I", "-c", "import sys; print(sys.prefix); print(sys.base_prefix); print(sys.executable)"], {
      env: { PATH: pathEnv },
      encoding: "utf8",
      timeout: 60_000,
    });
    const [prefix, base, exe] = out.trim().split("\n");
    dirs = [prefix, base, exe ? dirname(exe) : undefined].filter(
      (d): d is string => !!d && !systemDirs.some((s) => d === s || d.startsWith(`${s}/`)),
    );
  } catch {
    dirs = [];
  }
  prefixes.set(key, dirs);
  return dirs;
}

/** The real directory of the python on PATH (a pyenv shim resolved), for putting in front of PATH inside. */
const realBins = new Map<string, string | null>();

export function realPythonBin(pathEnv: string): string | null {
  if (realBins.has(pathEnv)) return realBins.get(pathEnv)!;
  let bin: string | null = null;
  try {
    const exe = execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], {
      env: { PATH: pathEnv },
      encoding: "utf8",
      timeout: 60_000,
    }).trim();
    bin = exe ? dirname(exe) : null;
  } catch {
    bin = null;
  }
  realBins.set(pathEnv, bin);
  return bin;
}

export function pathList(path: string | undefined): string[] {
  return (path ?? "").split(delimiter).filter((p) => p !== "");
}
