import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import { tempDir } from "../helpers/temp.js";
import { pathWithout } from "../helpers/tools.js";

/** `npx vitest run FILE` as a user runs it, on a PATH without bubblewrap. */
async function vitestWithoutBwrap(file: string, ci: boolean) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithout(["bwrap"], tempDir("switch-swe-gates-path-")) };
  delete env.CI;
  delete env.SWITCH_SWE_TEST_SKIPS;
  if (ci) env.CI = "true";
  const r = await runProcess(process.execPath, [join(packageRoot, "node_modules", "vitest", "vitest.mjs"), "run", file], {
    cwd: packageRoot,
    env,
    timeoutMs: 600_000,
  });
  return { code: r.code, out: `${r.stdout}\n${r.stderr}` };
}

// The README's rule: a machine without an optional tool passes `npm test` by skipping what needs it,
// says so in the last line, and CI (CI=true) can never go green by skipping.
describe("test files that need a missing tool", () => {
  const file = "test/verify/missing-test-ids.test.ts";

  it("skip on a machine without it, and the run's last line says what was skipped and what to install", async () => {
    const r = await vitestWithoutBwrap(file, false);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/skipped/);
    const last = r.out
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("skipped for missing tools:"));
    expect(last).toEqual([
      `skipped for missing tools: 1 test file(s) (${file}); missing: bwrap; to run them: apt-get install bubblewrap (see switch-swe doctor --for test; under CI=true they fail instead)`,
    ]);
  });

  it("fail under CI=true, naming the tool and how to install it", async () => {
    const r = await vitestWithoutBwrap(file, true);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(`${file}: CI=true and a tool it needs is missing (bwrap: bwrap is not installed`);
    expect(r.out).toContain("install: apt-get install bubblewrap");
    expect(r.out).not.toContain("skipped for missing tools:");
  });
});
