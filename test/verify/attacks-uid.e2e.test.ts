import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { copySampleWithSessions } from "./fixture.js";

/**
 * Issue 42, finding 2: the sandbox user was the host's root. Started by root, `bwrap --unshare-user
 * --uid 1000` mapped the inside uid to host uid 0: `/proc/sys` accepted writes (kernel.core_pattern,
 * which the kernel runs as root outside every namespace), files made inside belonged to root. With
 * finding 5's smaller routes: io_uring and ptrace open, and the overlay's layers (the cache, the base
 * commit) named in the agent's mount table. Each probe runs for real inside the agent's sandbox
 * (`run --agent command`) and inside the verifier's (code under test, at import), through the CLI,
 * and leaves a marker proving it ran and what the kernel answered.
 */

/** The probe, in Python: every answer on one `UID-PROBE` line (x86_64 call numbers). */
const probePy = String.raw`
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
err = lambda r: 0 if r != -1 else ctypes.get_errno()
out = {"side": sys.argv[1], "uid": os.getuid()}
try:
    cur = open("/proc/sys/kernel/core_pattern").read()
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write(cur)  # the same value: on a vulnerable harness this must change nothing
    out["core_pattern"] = "written"
except OSError as e:
    out["core_pattern"] = "refused: " + str(e.strerror)
made = os.path.join(os.environ.get("TMPDIR") or "/tmp", "probe-owned-" + sys.argv[1])
open(made, "w").close()
st = os.stat(made).st_uid
for line in open("/proc/self/uid_map"):
    a, b, c = map(int, line.split())
    if a <= st < a + c:
        out["made_host_uid"] = b + st - a
params = (ctypes.c_ubyte * 120)()
out["io_uring_setup"] = err(libc.syscall(ctypes.c_long(425), ctypes.c_long(1), params))
out["ptrace"] = err(libc.syscall(ctypes.c_long(101), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0)))
mi = open("/proc/self/mountinfo").read()
out["mountinfo_names"] = [n for n in sys.argv[2:] if n in mi]
out["overlay_options"] = [l.split(" - ")[1] for l in mi.splitlines() if " - overlay " in l]
print("UID-PROBE " + json.dumps(out))
`;

interface Probe {
  side: string;
  uid: number;
  core_pattern: string;
  made_host_uid?: number;
  io_uring_setup: number;
  ptrace: number;
  mountinfo_names: string[];
  overlay_options: string[];
}

const probeOf = (text: string, side: string): Probe | undefined => {
  const line = text.split("\n").find((l) => l.includes(`UID-PROBE {"side": "${side}"`));
  return line ? (JSON.parse(line.slice(line.indexOf("{"), line.lastIndexOf("}") + 1)) as Probe) : undefined;
};

const skipWhy: string | null =
  process.getuid?.() !== 0
    ? "runs as root only (the harness as root is the case)"
    : skipWithout(import.meta.url, "bwrap")
      ? "bwrap is missing"
      : process.arch !== "x64"
        ? "the probe uses x86_64 call numbers"
        : null;

let root: string;
let dataset: string;
let sessions: string;
let focusSession: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  if (skipWhy) return;
  const copy = copySampleWithSessions("switch-swe-uid-");
  ({ root, dataset, sessions, env } = copy);
  focusSession = `${copy.focusTask}.base`;
  mkdirSync(join(root, "scripts"), { recursive: true });
}, 120_000);

/**
 * The agent's script: the probe copied into its workspace (the artifact carries it to the verifier) and
 * run there, its answer in a file of the workspace (the artifact carries it); every package's
 * __init__.py runs it again at import in the verifier and warns its answer (the verify log has it).
 */
function agentScript(agentNames: readonly string[], verifierNames: readonly string[]): string {
  const q = (ns: readonly string[]) => ns.map((n) => `'${n}'`).join(" ");
  const atImport = [
    "import os as _o, subprocess as _s, sys as _y, warnings as _w",
    `_w.warn(_s.run([_y.executable, _o.path.join(_o.path.dirname(_o.path.abspath(__file__)), "..", "uid_probe.py"), "verifier", ${verifierNames.map((n) => JSON.stringify(n)).join(", ")}], capture_output=True, text=True).stdout.strip())`,
  ].join("\n");
  return [
    `cat > uid_probe.py <<'PYEOF'\n${probePy}\nPYEOF`,
    `python3 uid_probe.py agent ${q(agentNames)} > uid-probe-agent.txt`,
    `for f in */__init__.py; do cat >> "$f" <<'PYEOF'\n${atImport}\nPYEOF\ndone`,
  ].join("\n");
}

describe.skipIf(skipWhy !== null)("issue 42, finding 2: nothing inside any sandbox is host root", () => {
  it("agent and verifier alike: /proc/sys refused, files not root's, io_uring and ptrace refused, no cache, run or layer path in the mount table", () => {
    const out = join(root, "default");
    // Not the cache as a whole: a task environment is bound at its own path (its scripts name it).
    const layers = ["switch-swe-base", ".layers"];
    const script = join(root, "scripts", "default.sh");
    writeFileSync(script, agentScript([out, join(root, "cache", "work"), ...layers], [out, ...layers]));
    const run = cli(
      [
        "run",
        "--dataset",
        dataset,
        "--sessions",
        sessions,
        "--session",
        focusSession,
        "--out",
        out,
        "--agent",
        "command",
        "--agent-opt",
        `command=sh ${script}`,
        "--no-verify",
        "--quiet",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const verify = cli(["verify", out], { env });
    expect([0, 1], verify.stderr).toContain(verify.code);
    const dir = join(out, "sessions", focusSession);
    const artifact = readFileSync(join(dir, "artifact.patch"), "utf8");
    const log = readFileSync(join(dir, "verify.log"), "utf8");
    const agent = probeOf(
      artifact
        .split("\n")
        .map((l) => l.replace(/^\+/, ""))
        .join("\n"),
      "agent",
    );
    const verifier = probeOf(log, "verifier");
    // The markers: each probe ran.
    expect(agent, artifact.slice(0, 3000)).toBeDefined();
    expect(verifier, log.slice(-3000)).toBeDefined();
    for (const p of [agent!, verifier!]) {
      expect(p.core_pattern, p.side).toMatch(/^refused: (Read-only file system|Permission denied)$/);
      expect(p.made_host_uid, p.side).toBeDefined();
      expect(p.made_host_uid, p.side).not.toBe(0);
      expect(p.io_uring_setup, p.side).toBe(1); // EPERM
      expect(p.ptrace, p.side).toBe(1);
      expect(p.mountinfo_names, p.side).toEqual([]);
    }
    // The agent's workspaces are overlays here: their options name descriptors, not the cache.
    expect(agent!.overlay_options.length).toBeGreaterThan(0);
    for (const o of agent!.overlay_options) expect(o).toMatch(/lowerdir=\/proc\/self\/fd\/\d+,upperdir=\/proc\/self\/fd\/\d+/);
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
      sandbox: { hardening: Record<string, { applied: boolean; detail: string }> };
    };
    expect(config.sandbox.hardening.host_user).toMatchObject({
      applied: true,
      detail: expect.stringContaining(`host uid/gid ${agent!.made_host_uid}`),
    });
  }, 600_000);

  it("a file the agent makes is not root's on the host (kept workspaces, owner read after the run)", () => {
    const out = join(root, "kept");
    const script = join(root, "scripts", "kept.sh");
    writeFileSync(script, "echo made-by-the-agent > host-owner-probe.txt\ncp /bin/true setuid-probe && chmod 4755 setuid-probe\n");
    const run = cli(
      [
        "run",
        "--dataset",
        dataset,
        "--sessions",
        sessions,
        "--session",
        focusSession,
        "--out",
        out,
        "--agent",
        "command",
        "--agent-opt",
        `command=sh ${script}`,
        "--no-verify",
        "--quiet",
        "--keep-workspaces",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const made = findFile(out, "host-owner-probe.txt");
    expect(made, "the agent's marker file").not.toBeNull();
    expect(readFileSync(made!, "utf8")).toBe("made-by-the-agent\n");
    expect(lstatSync(made!).uid).not.toBe(0);
    const setuid = join(made!, "..", "setuid-probe");
    expect(existsSync(setuid)).toBe(true);
    // A set-uid file it makes is at most the unprivileged user's.
    expect(lstatSync(setuid).uid).not.toBe(0);
  }, 600_000);
});

/** The first file named `name` under `dir` (symbolic links not followed). */
function findFile(dir: string, name: string): string | null {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    // RUN_DIR/work/<id> is a link to the kept workspaces.
    if ((e.isDirectory() || (e.isSymbolicLink() && statSync(p).isDirectory())) && e.name !== ".git") {
      const f = findFile(p, name);
      if (f) return f;
    }
  }
  return null;
}
