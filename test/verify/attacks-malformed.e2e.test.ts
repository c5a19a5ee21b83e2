import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";
import { tempDir } from "./fixture.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

/**
 * Issue 42, item 6: nothing an agent leaves or submits, however large or odd, fails the verifier or
 * loses the artifact, and the code under test does not learn where its checkout lies on the host.
 * Each attack runs through the CLI (`run --agent command`, then `verify`) and its payload leaves a
 * marker: in the artifact, the trajectory, or the test run's output in verify.log.
 */

interface Verdictish {
  resolved: boolean;
  applied: boolean;
  apply_error?: string;
  infra_fault: boolean;
  infra_reason?: string;
  suspicious?: boolean;
  suspicious_reasons?: string[];
}

let fx: RunFixture;
let pair: string;

beforeAll(() => {
  if (missingTool) return;
  fx = makeRunFixture(1);
  pair = fx.sessions.pairs[0]!.id;
}, 120_000);

/** Runs a shell agent whose finalization step is `final` (sandboxed, the default), then `verify --force`. */
function attack(
  name: string,
  final: string,
  submission: "agent" | "checkout",
  where: { dataset: string; sessions: string; session?: string; cache: string } = {
    dataset: fx.datasetDir,
    sessions: fx.sessionsPath,
    cache: fx.cache,
  },
) {
  const root = join(where.cache, "..");
  const out = join(root, name);
  mkdirSync(join(root, "scripts"), { recursive: true });
  const script = join(root, "scripts", `${name}.sh`);
  writeFileSync(script, `msg=$(cat)\ncd "$SWITCH_SWE_WORKSPACE"\ncase "$msg" in *"ready for evaluation"*)\n${final}\n;; esac\necho done\n`);
  const env = { SWITCH_SWE_CACHE: where.cache };
  const select = where.session ? ["--session", where.session] : [];
  const run = cli(
    [
      "run",
      "--dataset",
      where.dataset,
      "--sessions",
      where.sessions,
      ...select,
      "--out",
      out,
      "--agent",
      "command",
      "--agent-opt",
      `command=sh ${script}`,
      "--submission",
      submission,
      "--quiet",
    ],
    { env },
  );
  const verify = cli(["verify", out, "--force"], { env });
  const dir = join(out, "sessions", where.session ?? `${pair}.base`);
  return {
    run,
    verify,
    dir,
    verdict: JSON.parse(readFileSync(join(dir, "verdict.json"), "utf8")) as Verdictish,
    log: readFileSync(join(dir, "verify.log"), "utf8"),
  };
}

describe.skipIf(missingTool)("issue 42 item 6: no artifact fails the verifier or is lost", () => {
  it("a submitted patch with one 20 MB line is verified (a suspicious reason), not a crash of the verifier", () => {
    const final = [
      `{ printf 'diff --git a/pkg/a/one.py b/pkg/a/one.py\\n--- a/pkg/a/one.py\\n+++ b/pkg/a/one.py\\n@@ -1,2 +1,3 @@\\n # pkg/a/one.py\\n VALUE = 1\\n+OPTION = "'`,
      "head -c 20000000 /dev/zero | tr '\\0' A",
      `printf '"\\n'; } > final.patch`,
    ].join("; ");
    const r = attack("long-line", final, "agent");
    // Before: "Maximum call stack size exceeded" in the suspicious scan, an infrastructure fault, exit 1.
    expect(r.verdict.infra_fault, r.verdict.infra_reason).toBe(false);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.verify.code, r.verify.stderr).toBe(0);
    expect(r.verdict.applied, r.verdict.apply_error).toBe(true);
    expect(r.verdict.suspicious_reasons?.join("\n")).toMatch(/a line too long to scan whole \(pkg\/a\/one\.py\)/);
  }, 600_000);

  it("a FIFO left in the focus workspace is skipped with a note; the artifact is collected and verified", () => {
    const r = attack("fifo", 'echo "FIFO_SIBLING = 1" >> pkg/a/one.py; mkfifo pipe; mkfifo pkg/a/pipe2', "checkout");
    // Before: the artifact could not be collected and the verdict said the session "did not finalize".
    expect(r.verdict.apply_error).toBeUndefined();
    expect(r.verdict.applied).toBe(true);
    const artifact = readFileSync(join(r.dir, "artifact.patch"), "utf8");
    expect(artifact).toContain("+FIFO_SIBLING = 1");
    expect(artifact).not.toContain("pipe");
    const session = JSON.parse(readFileSync(join(r.dir, "session.json"), "utf8")) as {
      finalized?: boolean;
      skipped_special_files?: Record<string, string[]>;
    };
    expect(Object.values(session.skipped_special_files ?? {})).toEqual([["pipe", "pkg/a/pipe2"]]);
    expect(r.verify.code, r.verify.stderr).toBe(0);
  }, 600_000);

  it("the code under test sees its checkout at /testbed, never the verifier's host path", () => {
    const root = tempDir("switch-swe-testbed-");
    const dataset = join(root, "dataset");
    cpSync(join(packageRoot, "datasets", "sample"), dataset, { recursive: true });
    const cache = join(root, "cache");
    const sessions = join(root, "sessions.json");
    const b = cli(["sessions", "build", dataset, "--seed", "0", "--out", sessions], { env: { SWITCH_SWE_CACHE: cache } });
    expect(b.code, b.stderr).toBe(0);
    const focus = (JSON.parse(readFileSync(sessions, "utf8")) as { pairs: Array<{ focus: string; repo: string }> }).pairs.find(
      (p) => p.repo === "textflow",
    )!.focus;
    const payload =
      'printf \'import os as _os\\nraise RuntimeError("CWD-MARKER " + _os.getcwd() + " FILE-MARKER " + __file__)\\n\' >> textflow/__init__.py';
    const r = attack("cwd", payload, "checkout", { dataset, sessions, session: `${focus}.base`, cache });
    const cwd = /CWD-MARKER (\S+) FILE-MARKER (\S+)/.exec(r.log);
    expect(cwd, r.log.slice(-3000)).not.toBeNull();
    // Before: the scratch checkout's host path (…/switch-swe-verifier-…/v-…/attempt-1/checkout).
    expect(cwd![1]).toBe("/testbed");
    expect(cwd![2]).toBe("/testbed/textflow/__init__.py");
    expect(r.verdict.infra_fault).toBe(false);
    expect(readdirSync(r.dir)).toContain("verdict.json");
  }, 600_000);
});
