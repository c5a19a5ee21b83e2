import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { doctorReportSchema, type DoctorReport } from "../../src/formats/doctor.js";
import { cliAsync } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { pathWithout, toolProblem } from "../helpers/tools.js";

async function doctor(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; report: DoctorReport; stdout: string }> {
  const r = await cliAsync(["doctor", "--json", ...args], { env, timeoutMs: 300_000 });
  return { code: r.code, report: doctorReportSchema.parse(JSON.parse(r.stdout)), stdout: r.stdout };
}

const byId = (report: DoctorReport, id: string) => report.checks.find((c) => c.id === id)!;

describe("switch-swe doctor", () => {
  it("names every tool with its version, what it enables and how to install it; exit 0 when the use's needs are here", async () => {
    const { code, report } = await doctor(["--for", "demo"]);
    expect(report.checks.map((c) => c.id)).toEqual([
      "node",
      "git",
      "python3",
      "pytest",
      "unittest",
      "bwrap",
      "userns",
      "socat",
      "cgroups",
      "overlay",
      "redis-server",
      "chromium",
      "agent:opencode",
      "agent:claude-code",
      "agent:codex",
      "agent:gemini",
      "cache",
    ]);
    // The versions are the tools' own answers on this machine.
    expect(byId(report, "node").detail).toBe(process.version);
    const git = execFileSync("git", ["--version"], { encoding: "utf8" }).match(/\d+\.\d+\.\d+/)![0];
    expect(byId(report, "git")).toMatchObject({ ok: true, detail: `git ${git}` });
    for (const c of report.checks) {
      expect(c.enables.length).toBeGreaterThan(0);
      if (!c.ok) expect(c.install, c.id).not.toBeNull();
    }
    // The demo needs node, git, python3 and pytest only, and the test machine has them.
    expect(report).toMatchObject({ for: "demo", ready: true, missing: [] });
    expect(code).toBe(0);
    // What this machine can confine with is said as it is.
    expect(byId(report, "bwrap").ok).toBe(toolProblem("bwrap") === null);
    expect(byId(report, "redis-server").ok).toBe(toolProblem("redis-server") === null);
  });

  it("with each tool hidden from PATH: that check fails with its install command, and only the uses that need it fail", async () => {
    const cases = [
      { hide: ["bwrap"], ids: ["bwrap", "userns"], install: "apt-get install bubblewrap", needs: "run", spared: "demo" },
      { hide: ["redis-server"], ids: ["redis-server"], install: "apt-get install redis-server", needs: "queue", spared: "verify" },
      { hide: ["socat"], ids: ["socat"], install: "apt-get install socat", needs: "run", spared: "verify" },
      { hide: ["chromium"], ids: ["chromium"], install: "apt-get install chromium", needs: "test", spared: "demo" },
      { hide: ["git"], ids: ["git"], install: "apt-get install git", needs: "demo", spared: null },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const PATH = pathWithout(c.hide, tempDir("switch-swe-doctor-path-"));
        const need = await doctor(["--for", c.needs], { PATH });
        for (const id of c.ids) expect(byId(need.report, id), `${c.hide[0]}: ${id}`).toMatchObject({ ok: false, install: c.install });
        expect(need.report.missing).toEqual(expect.arrayContaining([c.ids[0]!]));
        expect(need.code).toBe(1);
        if (c.spared) {
          const spared = await doctor(["--for", c.spared], { PATH });
          expect(spared.report.missing).not.toContain(c.ids[0]);
        }
      }),
    );
  });

  it("the plain report marks what the use misses and ends with the verdict", async () => {
    const PATH = pathWithout(["bwrap"], tempDir("switch-swe-doctor-path-"));
    const r = await cliAsync(["doctor", "--for", "verify"], { env: { PATH }, timeoutMs: 300_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^MISS bwrap\s+bwrap is not installed .*install: apt-get install bubblewrap$/m);
    expect(r.stdout.trim().split("\n").at(-1)).toBe("not ready for verify: missing bwrap (see the install commands above)");
    const bad = await cliAsync(["doctor", "--for", "everything"], { timeoutMs: 60_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--for");
  });

  it("the demo refuses up front what it cannot run without, naming the fix and doctor", async () => {
    const PATH = pathWithout(["git"], tempDir("switch-swe-doctor-path-"));
    const r = await cliAsync(["demo", "--out", join(tempDir(), "demo")], { env: { PATH }, timeoutMs: 120_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("demo: git: git not found; install: apt-get install git (see switch-swe doctor)");
  });
});
