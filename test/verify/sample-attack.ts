import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "./fixture.js";

/** The parts of a verdict the attack tests read. */
export interface AttackVerdict {
  resolved: boolean;
  tests: Record<string, string>;
  notes?: string[];
  suspicious?: boolean;
  suspicious_reasons?: string[];
  infra_fault: boolean;
  canaries?: { tests: Array<{ id: string; expected: string; reported: string; of?: string }>; trusted: boolean; problems?: string[] };
}

/**
 * A hostile agent against the sample's first textflow pair, through the real CLI: `run --agent command`
 * runs the attacking script in the focus's uninterrupted session, then `verify` and `report`. Registers
 * its own `beforeAll` (sessions built once per file); `f2p` is the focus's fail-to-pass ids.
 */
export function sampleAttackBench(prefix: string) {
  const dataset = join(packageRoot, "datasets", "sample");
  const bench = { root: "", sessions: "", focusSession: "", f2p: [] as string[], env: {} as NodeJS.ProcessEnv };
  beforeAll(() => {
    bench.root = tempDir(prefix);
    bench.env = { SWITCH_SWE_CACHE: join(bench.root, "cache") };
    bench.sessions = join(bench.root, "sessions.json");
    const b = cli(["sessions", "build", dataset, "--seed", "0", "--out", bench.sessions], { env: bench.env });
    expect(b.code, b.stderr).toBe(0);
    const pairs = (JSON.parse(readFileSync(bench.sessions, "utf8")) as { pairs: Array<{ focus: string; repo: string }> }).pairs;
    const pair = pairs.find((p) => p.repo === "textflow")!;
    bench.focusSession = `${pair.focus}.base`;
    bench.f2p = (
      JSON.parse(readFileSync(join(dataset, "tasks", pair.focus, "task.json"), "utf8")) as { verifier: { fail_to_pass: string[] } }
    ).verifier.fail_to_pass;
  }, 120_000);

  /** Runs the attacking script as the agent, verifies, reports; the focus's verdict, verify.log, report entry and artifact. */
  function attack(name: string, script: string) {
    const dir = join(bench.root, name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "attack.sh");
    writeFileSync(file, `set -u\n${script}\n`);
    const out = join(dir, "run");
    const run = cli(
      [
        "run",
        "--dataset",
        dataset,
        "--sessions",
        bench.sessions,
        "--session",
        bench.focusSession,
        "--out",
        out,
        "--agent",
        "command",
        "--agent-opt",
        `command=sh ${file}`,
        "--no-verify",
        "--quiet",
      ],
      { env: bench.env },
    );
    expect(run.code, run.stderr).toBe(0);
    const verify = cli(["verify", out], { env: bench.env });
    expect(verify.code, verify.stderr).toBe(0);
    const sessionDir = join(out, "sessions", bench.focusSession);
    const verdict = JSON.parse(readFileSync(join(sessionDir, "verdict.json"), "utf8")) as AttackVerdict;
    const report = cli(["report", out, "--format", "json"], { env: bench.env });
    expect(report.code, report.stderr).toBe(0);
    const entry = (
      JSON.parse(report.stdout) as { configs: Array<{ sessions: Array<{ id: string; status: string; reason: string | null }> }> }
    ).configs[0]!.sessions.find((e) => e.id === bench.focusSession)!;
    return {
      verdict,
      entry,
      log: readFileSync(join(sessionDir, "verify.log"), "utf8"),
      artifact: readFileSync(join(sessionDir, "artifact.patch"), "utf8"),
    };
  }
  return { bench, attack };
}

/**
 * Shell that appends `py` once to every top-level package's `__init__.py` of the workspace (the code under
 * test imports it): the script runs at every request of the session, and two copies of a hook would recurse.
 */
export const intoPackages = (py: string) =>
  `for f in */__init__.py; do grep -q '^# attack$' "$f" && continue; echo '# attack' >> "$f"; cat >> "$f" <<'PYEOF'\n${py}\nPYEOF\ndone`;

/**
 * Python lines that give every test module already imported, and every one imported later (through a
 * meta_path finder that wraps the loader's exec_module), the module class `cls`: the attacks differ only
 * in what that class does to a test function.
 */
export const hushTestModules = (cls: string): string[] => [
  "def _hush(m):",
  "    if type(m) is _t.ModuleType:",
  `        m.__class__ = ${cls}`,
  "for _n, _m in list(getattr(_s, 'mod' + 'ules').items()):",
  "    if _n.rpartition('.')[2].startswith('test_'):",
  "        _hush(_m)",
  "class _Finder:",
  "    def find_spec(self, name, path=None, target=None):",
  "        if not name.rpartition('.')[2].startswith('test_'):",
  "            return None",
  "        for f in _s.meta_path:",
  "            spec = None if f is self or not hasattr(f, 'find_spec') else f.find_spec(name, path, target)",
  "            if spec is not None:",
  "                inner = spec.loader.exec_module",
  "                def exec_module(module, inner=inner):",
  "                    inner(module)",
  "                    _hush(module)",
  "                spec.loader.exec_module = exec_module",
  "                return spec",
  "        return None",
  "_s.meta_path.insert(0, _Finder())",
];
