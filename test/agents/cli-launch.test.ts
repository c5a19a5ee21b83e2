import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, cliHome, cliLaunch, cliState, installDirs } from "../../src/agents/cli-launch.js";
import { sessionSandbox } from "../../src/confine/session-sandbox.js";
import type { AgentContext } from "../../src/agents/types.js";
import { createCgroup, probeLimits } from "../../src/confine/cgroups.js";
import { packageRoot } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import type { WorkspaceName } from "../../src/formats/sessions.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";

/** A session's context with real host directories, sandboxed or not. */
function context(sandboxed: boolean): { ctx: AgentContext; root: string } {
  const root = tempDir("switch-swe-cli-launch-");
  const names: WorkspaceName[] = ["w00", "w01", "w02", "w03", "w04"];
  const host = Object.fromEntries(names.map((n) => [n, join(root, "work", n)])) as Record<WorkspaceName, string>;
  for (const p of Object.values(host)) mkdirSync(p, { recursive: true });
  const stateDir = join(root, "state");
  const sandbox = sandboxed
    ? sessionSandbox({ repo: "demo/repo", workspaces: host, stateDir, homeDir: join(root, "home"), network: false })
    : undefined;
  const ctx = {
    workspaces: sandbox?.insidePaths ?? host,
    stateDir,
    logDir: join(root, "logs"),
    ...(sandbox ? { sandbox } : {}),
  } as unknown as AgentContext;
  return { ctx, root };
}

// The sandboxed launch needs bwrap: skipped with the reason where bwrap is missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");
describe("a real CLI agent's process, sandboxed and not", () => {
  it("binds the node_modules tree a bundled CLI lives in, and only the program itself outside one", () => {
    const codex = join(packageRoot, "node_modules", ".bin", "codex");
    expect(installDirs(codex)).toEqual([join(packageRoot, "node_modules")]);
    expect(installDirs("/bin/sh")).toEqual([realpathSync("/bin/sh"), "/bin/sh"]);
    expect(installDirs("/no/such/cli")).toEqual(["/no/such/cli"]);
  });

  it("names the private HOME as the agent sees it, creates it on the host, and passes only the named variables", () => {
    process.env.SWITCH_SWE_TEST_SECRET = "s3cret";
    process.env.SWITCH_SWE_TEST_NAMED = "named";
    try {
      const { ctx, root } = context(true);
      const home = cliHome(ctx, "unused");
      const env = cliEnv(ctx, home, ["SWITCH_SWE_TEST_NAMED"], { CODEX_HOME: `${home.inside}/.codex` });
      expect(home).toEqual({ host: join(root, "home"), inside: "/home/agent" });
      expect(env).toMatchObject({
        HOME: "/home/agent",
        TMPDIR: "/tmp",
        XDG_CONFIG_HOME: "/home/agent/.config",
        CODEX_HOME: "/home/agent/.codex",
        SWITCH_SWE_TEST_NAMED: "named",
      });
      expect(env.SWITCH_SWE_TEST_SECRET).toBeUndefined();
      expect(existsSync(join(root, "home", ".config"))).toBe(true);
      expect(cliState(ctx)).toEqual({ host: join(root, "state"), inside: "/state" });
    } finally {
      delete process.env.SWITCH_SWE_TEST_SECRET;
      delete process.env.SWITCH_SWE_TEST_NAMED;
    }
  });

  it.skipIf(missingTool)(
    "runs the CLI in bwrap: its config in HOME is there, the host state path and the caller's files are not, a daemon dies",
    async () => {
      const { ctx, root } = context(true);
      const home = cliHome(ctx, "unused");
      writeFileSync(join(home.host, "settings.json"), "{}\n");
      const secret = join(root, "outside.txt");
      writeFileSync(secret, "secret\n");
      const cli = join(root, "fake-cli.sh");
      writeFileSync(cli, `#!/bin/sh\ncat "$HOME/settings.json"; pwd; cat '${secret}' || echo hidden; setsid sleep 654321 & echo done\n`, {
        mode: 0o755,
      });
      const env = cliEnv(ctx, home, [], {});
      const l = cliLaunch(ctx, cli, [], "/workspace/demo_repo", env, join(root, "pid"), [], new AbortController().signal);
      expect([l.command, ...l.args].join(" ")).toContain("exec bwrap");
      const r = await runProcess(l.command, l.args, { cwd: l.cwd, env: l.env, timeoutMs: 60_000 });
      expect(r.stderr, r.stdout).toContain("No such file");
      expect(r.stdout.split("\n")).toEqual(["{}", "/workspace/demo_repo", "hidden", "done", ""]);
      expect(existsSync(join(root, "pid"))).toBe(false);
      const alive = await runProcess("pgrep", ["-f", "sleep 654321"], { timeoutMs: 10_000 });
      expect(alive.stdout).toBe("");
    },
  );

  const pidsLimit = { cpus: null, memory: null, pids: 64 };
  const noCgroups =
    probeLimits(pidsLimit).pids.status === "enforced" ? null : `cgroups are not writable here: ${probeLimits(pidsLimit).pids.detail}`;
  it.skipIf(noCgroups !== null)("starts the CLI, sandboxed or not, inside the session's cgroup when the session has limits", async () => {
    for (const sandboxed of [true, false]) {
      const { ctx, root } = context(sandboxed);
      const group = createCgroup(pidsLimit);
      try {
        const limitedCtx = { ...ctx, limits: group } as AgentContext;
        // A CLI that forks until the kernel refuses: only the session's pids.max can stop it below 64.
        const cli = join(root, "fake-cli.py");
        const forks =
          "import os, time\nn = 0\ntry:\n    while n < 200:\n        if os.fork() == 0:\n            time.sleep(3)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)\n";
        writeFileSync(cli, `#!/usr/bin/python3\n${forks}`, { mode: 0o755 });
        const cwd = sandboxed ? "/workspace/demo_repo" : root;
        const l = cliLaunch(limitedCtx, cli, [], cwd, { PATH: "/usr/bin:/bin" }, join(root, "pid"), [], new AbortController().signal);
        const r = await runProcess(l.command, l.args, { cwd: l.cwd, env: l.env, timeoutMs: 60_000 });
        expect(r.code, r.stderr).toBe(0);
        const children = Number(r.stdout.trim());
        expect(children, `sandboxed=${sandboxed}: ${r.stdout}`).toBeGreaterThan(0);
        expect(children, `sandboxed=${sandboxed}`).toBeLessThan(64);
      } finally {
        await group.remove();
      }
    }
  });

  it("unsandboxed, runs on the host through a shell that records the process group", () => {
    const { ctx, root } = context(false);
    const l = cliLaunch(ctx, "/usr/bin/true", ["x"], root, { PATH: "/usr/bin" }, join(root, "pid"), [], new AbortController().signal);
    expect(l).toMatchObject({ command: "sh", cwd: root, env: { SWITCH_SWE_PIDFILE: join(root, "pid") } });
    expect(l.args.slice(2)).toEqual(["/usr/bin/true", "x"]);
    expect(l.signal).toBeUndefined();
  });
});
