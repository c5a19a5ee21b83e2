import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { delimiter, dirname } from "node:path";

/**
 * Bubblewrap sandboxes (https://github.com/containers/bubblewrap, Debian package `bubblewrap`).
 * Inside: a read-only system (/usr, /etc and the interpreter prefixes it is told about), fresh
 * /proc, /dev and /tmp, the binds it is given, and nothing else of the machine: not the caller's
 * HOME, not the dataset, the run directory or the caches. A new PID namespace: when the sandboxed
 * command ends or is killed, every process in it dies, `setsid` daemons included. Optionally no
 * network (only a private `lo`).
 */

export type SandboxMode = "bwrap" | "none";
export const sandboxModes: readonly SandboxMode[] = ["bwrap", "none"];

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
}

const systemDirs = ["/usr", "/etc", "/opt"];
const topLinks = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Arguments for `bwrap` that run `argv` in the sandbox `spec`. */
export function bwrapArgs(spec: SandboxSpec, argv: readonly string[]): string[] {
  const a = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--new-session"];
  if (!spec.network) a.push("--unshare-net");
  for (const d of systemDirs) if (existsSync(d)) a.push("--ro-bind", d, d);
  for (const l of topLinks) {
    if (!existsSync(l)) continue;
    const st = lstatSync(l);
    if (st.isSymbolicLink()) a.push("--symlink", readlinkSync(l), l);
    else a.push("--ro-bind", l, l);
  }
  a.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", "/var");
  for (const d of spec.system ?? []) if (existsSync(d)) a.push("--ro-bind", d, d);
  for (const t of spec.tmpfs ?? []) a.push("--tmpfs", t);
  for (const b of spec.binds) a.push(b.rw ? "--bind" : "--ro-bind", b.src, b.dest ?? b.src);
  a.push("--chdir", spec.chdir, "--", ...argv);
  return a;
}

let probed: string | null | undefined;

/** Null when bubblewrap can start a sandbox here, else why not (probed once per process). */
export function bwrapProblem(): string | null {
  if (probed !== undefined) return probed;
  try {
    execFileSync("bwrap", bwrapArgs({ binds: [], network: false, chdir: "/" }, ["/bin/true"]), { stdio: "pipe", timeout: 30_000 });
    probed = null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    probed = err.code === "ENOENT" ? "bwrap is not installed (Debian: apt-get install bubblewrap)" : `bwrap cannot start a sandbox here: ${(err.stderr?.toString() ?? err.message).trim().slice(0, 300)}`;
  }
  return probed;
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
    dirs = [prefix, base, exe ? dirname(exe) : undefined].filter((d): d is string => !!d && !systemDirs.some((s) => d === s || d.startsWith(`${s}/`)));
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
    const exe = execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { env: { PATH: pathEnv }, encoding: "utf8", timeout: 60_000 }).trim();
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
