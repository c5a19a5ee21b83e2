import { existsSync, statfsSync } from "node:fs";
import { dirname, join } from "node:path";
import { locateCli, type CliPackage } from "../agents/cli-options.js";
import { cliVersion, versionIn } from "../agents/harness-version.js";
import { cliAgentPackages } from "../agents/registry.js";
import { probeLimits } from "../confine/cgroups.js";
import { defaultLimits } from "../confine/limits.js";
import { overlayUnavailable } from "../core/overlay.js";
import { runProcess } from "../core/process.js";
import type { ConfineBackend } from "../confine/backend.js";
import { confineBackends, defaultConfineBackend } from "../confine/registry.js";
import { cacheRoot } from "../dataset/repo-cache.js";
import { testRunners } from "../testbed/test-runners.js";
import type { DoctorCheck } from "../formats/doctor.js";

/** Node's oldest supported version (package.json `engines`). */
const minNode: [number, number] = [20, 19];

/** `COMMAND ARGS` answered with a version within 30 s, or why not. */
async function versionOf(command: string, args: readonly string[]): Promise<{ version: string | null; why: string }> {
  const r = await runProcess(command, args, { timeoutMs: 30_000 });
  if (r.spawnError) return { version: null, why: `${command} not found` };
  const version = versionIn(r.stdout) ?? versionIn(r.stderr);
  if (r.code !== 0 || version === null)
    return { version: null, why: `${command} ${args.join(" ")}: ${(r.stderr || r.stdout).trim().split("\n")[0] ?? `exit ${r.code}`}` };
  return { version, why: "" };
}

function check(id: string, ok: boolean, detail: string, enables: string, install: string | null): DoctorCheck {
  return { id, ok, detail, enables, install };
}

function nodeCheck(): DoctorCheck {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  const ok = major > minNode[0] || (major === minNode[0] && minor >= minNode[1]);
  return check(
    "node",
    ok,
    ok ? `v${process.versions.node}` : `v${process.versions.node} is older than ${minNode.join(".")}`,
    "switch-swe itself",
    "install Node.js 20.19 or later (https://nodejs.org)",
  );
}

async function toolCheck(id: string, command: string, args: readonly string[], enables: string, install: string): Promise<DoctorCheck> {
  const v = await versionOf(command, args);
  return check(id, v.version !== null, v.version !== null ? `${id} ${v.version}` : v.why, enables, install);
}

/**
 * One check per confining backend, its `--sandbox` mode as the id, asked of the backend itself (the
 * same probe a run makes): a backend added to src/confine/registry.ts is checked without a word here.
 */
function backendCheck(b: ConfineBackend): DoctorCheck {
  const p = b.probe();
  const enables = `confinement of agents and test runs (run, verify --sandbox ${b.mode})`;
  return check(
    b.mode,
    p.problem === null,
    p.problem ?? p.detail ?? `${b.mode} can confine here`,
    enables,
    p.problem === null ? null : b.install,
  );
}

const hardeningNames = {
  host_user: "sandbox user",
  user_namespace: "own user namespace",
  capabilities: "no capabilities",
  syscall_filter: "syscall filter",
} as const;

/**
 * What the default backend sheds of the caller's privileges (the same probe every run makes): its own
 * user namespace mapped to an unprivileged id, every capability dropped, the syscall filter. What
 * keeps a process started by root from using root's capabilities inside.
 */
function usernsCheck(): DoctorCheck {
  const enables = "no capability and a syscall filter inside a sandbox, even as root";
  const b = defaultConfineBackend();
  const p = b.probe();
  if (p.problem !== null) return check("userns", false, p.problem, enables, b.install);
  if (!p.hardening) return check("userns", false, `--sandbox ${b.mode} sheds none of the caller's privileges`, enables, null);
  const parts = Object.entries(hardeningNames).map(([k, name]) => ({ name, part: p.hardening![k as keyof typeof hardeningNames] }));
  const ok = parts.every((x) => x.part.applied);
  return check(
    "userns",
    ok,
    ok
      ? `${p.hardening.host_user.detail}; ${parts
          .slice(1)
          .filter((x) => !x.part.detail.startsWith("not needed"))
          .map((x) => x.name)
          .join(", ")}`
      : parts
          .filter((x) => !x.part.applied)
          .map((x) => x.part.detail)
          .join("; "),
    enables,
    ok ? null : "run as root, or enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)",
  );
}

/** Copy-on-write workspaces (the same probe a run makes, in the same place); without them a run copies every workspace. */
async function overlayCheck(): Promise<DoctorCheck> {
  const why = await overlayUnavailable(join(cacheRoot(), "work"));
  const enables = "copy-on-write workspaces: a session's set-up independent of the repository's size (run); else copies";
  return check(
    "overlay",
    why === null,
    why === null ? "mount -t overlay works in the cache's work/" : why,
    enables,
    why === null
      ? null
      : "run as root (CAP_SYS_ADMIN), with the cache on a file system overlayfs takes as an upper layer (ext4, xfs, tmpfs)",
  );
}

function cgroupsCheck(): DoctorCheck {
  const enables = "per-session CPU, memory and process limits (run --limits)";
  const record = probeLimits(defaultLimits);
  const version = existsSync("/sys/fs/cgroup/cgroup.controllers") ? "v2" : "v1";
  const parts = (["cpus", "memory", "pids"] as const).map(
    (r) => `${r} ${record[r].status === "enforced" ? "writable" : `not writable (${record[r].detail})`}`,
  );
  const ok = (["cpus", "memory", "pids"] as const).every((r) => record[r].status === "enforced");
  return check(
    "cgroups",
    ok,
    `cgroup ${version}: ${parts.join("; ")}`,
    enables,
    ok ? null : "run as root on a machine with a writable cgroup hierarchy (limits are then enforced)",
  );
}

async function agentCheck(name: string, pkg: CliPackage): Promise<DoctorCheck> {
  const install = `npm install -g ${pkg.npm}@${pkg.version}`;
  const enables = `run --agent ${name}`;
  const bin = locateCli(pkg);
  if (bin === null) return check(`agent:${name}`, false, `${pkg.command} not installed`, enables, install);
  const version = await cliVersion(bin);
  if (version === null) return check(`agent:${name}`, false, `${bin} does not answer --version`, enables, install);
  const note = version === pkg.version ? "" : ` (switch-swe is made for ${pkg.version})`;
  return check(`agent:${name}`, true, `${pkg.command} ${version}${note}`, enables, install);
}

function cacheCheck(): DoctorCheck {
  const dir = cacheRoot();
  const enables = "repository and environment cache ($SWITCH_SWE_CACHE)";
  let probe = dir;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    // Measured where it will be: the nearest directory that exists (doctor creates nothing).
    const s = statfsSync(probe);
    const free = s.bavail * s.bsize;
    // A sympy checkout is about 200 MB and five of them make a session's workspaces.
    const ok = free >= 2 * 1024 ** 3;
    return check(
      "cache",
      ok,
      `${dir}: ${(free / 1024 ** 3).toFixed(1)} GiB free${ok ? "" : " (less than 2 GiB)"}`,
      enables,
      ok ? null : "free disk space, or set SWITCH_SWE_CACHE to a larger disk",
    );
  } catch (e) {
    return check("cache", false, `${dir}: ${(e as Error).message}`, enables, "set SWITCH_SWE_CACHE to a writable directory");
  }
}

/** Every registered real CLI agent (its capabilities name its package). */
const agentPackages = cliAgentPackages();

/** Every check by id, in the order they are printed (listed per call: a backend may be registered at run time). */
const probes = (): [string, () => DoctorCheck | Promise<DoctorCheck>][] => [
  ["node", nodeCheck],
  ["git", () => toolCheck("git", "git", ["--version"], "checkouts of tasks (every command)", "apt-get install git")],
  ["python3", () => toolCheck("python3", "python3", ["--version"], "the tasks' tests", "apt-get install python3")],
  // One check per test runner (src/testbed/test-runners.ts), named by it, from its own probe.
  ...testRunners().map((r): [string, () => Promise<DoctorCheck>] => [
    r.name,
    () => toolCheck(r.name, r.probe.program, r.probe.args, r.probe.enables, r.probe.fix),
  ]),
  ...confineBackends()
    .filter((b) => b.confines)
    .map((b): [string, () => DoctorCheck] => [b.mode, () => backendCheck(b)]),
  ["userns", usernsCheck],
  [
    "socat",
    () =>
      toolCheck(
        "socat",
        "socat",
        ["-V"],
        "run --network model (the default): only the model endpoint inside the agent's sandbox",
        "apt-get install socat",
      ),
  ],
  ["cgroups", cgroupsCheck],
  ["overlay", overlayCheck],
  [
    "redis-server",
    () =>
      toolCheck(
        "redis-server",
        "redis-server",
        ["--version"],
        "a queue for a fleet of workers (run --queue; the queue tests)",
        "apt-get install redis-server",
      ),
  ],
  ["chromium", () => toolCheck("chromium", "chromium", ["--version"], "the HTML report's browser test", "apt-get install chromium")],
  ...agentPackages.map(([name, pkg]): [string, () => Promise<DoctorCheck>] => [`agent:${name}`, () => agentCheck(name, pkg)]),
  ["cache", cacheCheck],
];

/** The checks named by `ids` (default: every one), run at the same time, in the printed order. */
export async function runDoctorChecks(ids?: readonly string[]): Promise<DoctorCheck[]> {
  return Promise.all(
    probes()
      .filter(([id]) => ids === undefined || ids.includes(id))
      .map(([, probe]) => probe()),
  );
}
