import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, writeScript } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

/**
 * A machine where no user namespace can be made (a laptop that disables them): a `bwrap` first on
 * PATH refuses `--unshare-user` the way the real one does there, and passes everything else on.
 * The run must still start, keep the other measures, and say what is missing (one line, and run.json).
 */
describe.skipIf(skipWithout(import.meta.url, "bwrap"))("a machine without user namespaces", () => {
  it("the run says so in one line when it starts (as root: needs none), records it, and still drops capabilities and filters calls", () => {
    const fx = makeRunFixture(1);
    const real = execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();
    const bin = join(fx.root, "bin");
    execFileSync("mkdir", ["-p", bin]);
    writeScript(
      bin,
      "bwrap",
      `for a in "$@"; do [ "$a" = --unshare-user ] && { echo 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2; exit 1; }; done\nexec ${real} "$@"`,
    );
    const pair = fx.sessions.pairs[0]!.focus;
    const out = join(fx.root, "run");
    const agent = writeScript(fx.root, "agent.sh", "grep -E '^(CapEff|Seccomp|Uid):' /proc/self/status > inside.txt");
    const r = cli(
      [
        "run",
        "--dataset",
        fx.datasetDir,
        "--sessions",
        fx.sessionsPath,
        "--out",
        out,
        "--no-verify",
        "--agent",
        "command",
        "--agent-opt",
        `command=sh ${agent}`,
        "--session",
        `${pair}.base`,
      ],
      {
        env: { SWITCH_SWE_CACHE: fx.cache, PATH: `${bin}:${process.env.PATH ?? ""}` },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const warnings = `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("sandbox weaker than it should be"));
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
      sandbox: { not_enforced: string[]; hardening: Record<string, { applied: boolean }> };
    };
    const session = readdirSync(join(out, "sessions"))[0]!;
    const artifact = readFileSync(join(out, "sessions", session, "artifact.patch"), "utf8");
    if (process.getuid?.() === 0) {
      // As root no user namespace is needed (issue 42): the sandbox drops to an unprivileged host uid, the whole hardening holds.
      expect(warnings).toEqual([]);
      expect(config.sandbox.hardening).toMatchObject({
        host_user: { applied: true },
        user_namespace: { applied: true },
        capabilities: { applied: true },
        syscall_filter: { applied: true },
      });
      expect(artifact).toMatch(/\+Uid:\t2000000000\t/);
    } else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/no user namespace can be made here \(bwrap: No permissions to create new namespace/);
      expect(config.sandbox.hardening).toMatchObject({
        user_namespace: { applied: false },
        capabilities: { applied: true },
        syscall_filter: { applied: true },
      });
      expect(config.sandbox.not_enforced.join("\n")).toMatch(/no user namespace can be made here/);
    }
    expect(artifact).toContain("+CapEff:\t0000000000000000");
    expect(artifact).toContain("+Seccomp:\t2");
  }, 300_000);
});
