import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

/**
 * Issue 42, class 1: the bytes applied are the bytes checked. A hostile agent submits (`run
 * --submission agent`) a patch whose first hunk is slightly off, so that `git apply` fails and the
 * verifier falls back to GNU patch, which reads the text after the hunk — text the verifier's own
 * parser kept inside that block, unchecked — as further patches. Each payload leaves a marker when
 * it runs: on the host (a file) or in the test run (a line in verify.log).
 */

let fx: RunFixture;
let pair: string;

interface Verdictish {
  resolved: boolean;
  applied: boolean;
  apply_method: string | null;
  apply_error?: string;
  infra_fault: boolean;
  infra_reason?: string;
  notes?: string[];
}

beforeAll(() => {
  if (missingTool) return;
  fx = makeRunFixture(1);
  pair = fx.sessions.pairs[0]!.id;
}, 120_000);

/** A first block git refuses (its first context line drifted) and GNU patch applies with fuzz. */
const drifted = [
  "diff --git a/pkg/a/one.py b/pkg/a/one.py",
  "--- a/pkg/a/one.py",
  "+++ b/pkg/a/one.py",
  "@@ -1,2 +1,3 @@",
  " # pkg/a/one.py (drifted)",
  " VALUE = 1",
  "+FIXED = True",
];

/** A context diff that creates `path` with `lines` (GNU patch reads it; the verifier's old parser kept it inside the block before). */
const contextNewFile = (path: string, lines: string[]) => [
  `*** a/${path}\t2020-01-01 00:00:00`,
  `--- b/${path}\t2020-01-01 00:00:00`,
  "***************",
  "*** 0 ****",
  `--- 1${lines.length > 1 ? `,${lines.length}` : ""} ----`,
  ...lines.map((l) => `+ ${l}`),
];

/** Runs the agent that submits `patch` as final.patch (sandboxed, the default), then `verify --force`. */
function attack(name: string, patch: string) {
  const out = join(fx.root, name);
  mkdirSync(join(fx.root, "scripts"), { recursive: true });
  const script = join(fx.root, "scripts", `${name}.sh`);
  writeFileSync(
    script,
    `msg=$(cat)\ncase "$msg" in *final.patch*) cat > "$SWITCH_SWE_WORKSPACE/final.patch" <<'PATCHEOF'\n${patch}\nPATCHEOF\n;; esac\necho done\n`,
  );
  const env = { SWITCH_SWE_CACHE: fx.cache };
  const run = cli(
    [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--out",
      out,
      "--agent",
      "command",
      "--agent-opt",
      `command=sh ${script}`,
      "--submission",
      "agent",
      "--quiet",
    ],
    { env },
  );
  const verify = cli(["verify", out, "--force"], { env });
  const dir = join(out, "sessions", `${pair}.base`);
  return {
    run,
    verify,
    verdict: JSON.parse(readFileSync(join(dir, "verdict.json"), "utf8")) as Verdictish,
    log: readFileSync(join(dir, "verify.log"), "utf8"),
  };
}

describe.skipIf(missingTool)("issue 42 class 1: what is applied is exactly what was checked", () => {
  it("a git filter planted in the checkout's .git/config by text after a hunk never runs, nor fails the held-out tests", () => {
    const marker = join(fx.root, "filter-ran");
    // A normal diff named by an `Index:` line: GNU patch edits .git/config with it; the verifier's old
    // parser read neither line as a header, so no path check saw `.git/`.
    const patch = [
      "diff --git a/.gitattributes b/.gitattributes",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/.gitattributes",
      "@@ -0,0 +1 @@",
      "+*.py filter=pwn",
      ...drifted,
      "Index: a/.git/config",
      "5a6,9",
      '> [filter "pwn"]',
      `> \tsmudge = "sh -c 'echo host-side git ran the artifact filter >> ${marker}; exit 1'"`,
      "> \tclean = cat",
      "> \trequired = true",
    ].join("\n");
    const r = attack("git-filter", patch);
    // Before: the verifier's host-side `git apply tests.patch` ran the filter as root, and its failure
    // made the held-out tests "not apply": an infrastructure fault, exit 1 of run and verify.
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "no marker").toBe("no marker");
    expect(r.verdict.infra_fault, r.verdict.infra_reason).toBe(false);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.verify.code, r.verify.stderr).toBe(0);
    // The drifted hunk still applies (with fuzz); the lines after it were never applied, and say so.
    expect(r.verdict.apply_method).toBe("patch-fuzz");
    expect(r.verdict.notes?.join("\n")).toMatch(/line\(s\) of the artifact are neither a header nor a hunk line and were not applied/);
  }, 600_000);

  it("a conftest.py smuggled after a hunk (which the filter drops by name) is never written", () => {
    const patch = [
      ...drifted,
      ...contextNewFile("tests/conftest.py", [
        "def pytest_terminal_summary(terminalreporter):",
        '    terminalreporter.write_line("SMUGGLED-CONFTEST-RAN")',
      ]),
    ].join("\n");
    const r = attack("smuggled-conftest", patch);
    expect(r.log).not.toContain("SMUGGLED-CONFTEST-RAN");
    expect(r.log).toContain("$ "); // the tests did run
    expect(r.verdict.infra_fault).toBe(false);
    expect(r.verify.code, r.verify.stderr).toBe(0);
  }, 600_000);

  it("a file written through a link the artifact makes (a path no kept block names) voids the artifact", () => {
    // git refuses "beyond a symbolic link"; GNU patch follows the link and writes tests/__init__.py,
    // a test-directory file that the filter would have dropped under its own name.
    const patch = [
      "diff --git a/lnk b/lnk",
      "new file mode 120000",
      "--- /dev/null",
      "+++ b/lnk",
      "@@ -0,0 +1 @@",
      "+tests",
      "\\ No newline at end of file",
      "diff --git a/lnk/__init__.py b/lnk/__init__.py",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/lnk/__init__.py",
      "@@ -0,0 +1,2 @@",
      "+import atexit",
      '+atexit.register(lambda: print("LINKED-INIT-RAN"))',
    ].join("\n");
    const r = attack("through-link", patch);
    expect(r.log).not.toContain("LINKED-INIT-RAN");
    expect(r.verdict.applied).toBe(false);
    expect(r.verdict.resolved).toBe(false);
    expect(r.verdict.infra_fault).toBe(false);
    expect(r.verdict.apply_error).toMatch(/changed paths that no kept block names: tests\/__init__\.py/);
    expect(r.verify.code, r.verify.stderr).toBe(0);
  }, 600_000);
});
