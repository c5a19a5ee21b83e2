import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { isolatedOpencodeEnv } from "../helpers/opencode-env.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

const opencode = join(packageRoot, "node_modules", ".bin", "opencode");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, input?: string) {
  const r = await runProcess(command, args, { cwd, env, timeoutMs: 300_000, ...(input === undefined ? {} : { input }) });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The plugin as it is published: `npm pack` of the project, installed offline into a fresh project
 * (its dependencies from the npm cache, at the locked versions), loaded by real OpenCode 1.18.33 from
 * the project's opencode.json with options, and one request against the scripted model.
 */
describe.skipIf(missingTool)("the packed switch-swe plugin in a fresh OpenCode project (real OpenCode, scripted model)", () => {
  const root = tempDir("switch-swe-packed-");
  const project = join(root, "project");
  let server: MockModelServer;
  let tarball = "";
  let request: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    mkdirSync(project, { recursive: true });
    // `npm test` built dist/ already; packing runs no scripts.
    const packed = await run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", root], packageRoot);
    expect(packed.code, packed.stderr).toBe(0);
    tarball = join(root, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    // A fresh project whose dependencies are switch-swe's own, at the versions of its lockfile, from the cache.
    // The overrides go too: the lockfile was resolved under them (ini for effect, see package.json).
    const own = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as {
      dependencies: object;
      devDependencies: object;
      overrides?: object;
    };
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "fresh-project",
        private: true,
        dependencies: own.dependencies,
        devDependencies: own.devDependencies,
        overrides: own.overrides,
      }),
    );
    const lock = JSON.parse(readFileSync(join(packageRoot, "package-lock.json"), "utf8")) as {
      name: string;
      packages: Record<string, Record<string, unknown>>;
    };
    lock.name = "fresh-project";
    lock.packages[""] = { name: "fresh-project", dependencies: own.dependencies, devDependencies: own.devDependencies };
    writeFileSync(join(project, "package-lock.json"), JSON.stringify(lock));
    const quiet = ["--offline", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"];
    const ci = await run(npm, ["ci", ...quiet], project);
    expect(ci.code, ci.stderr).toBe(0);
    const installed = await run(npm, ["install", ...quiet, tarball], project);
    expect(installed.code, installed.stderr).toBe(0);

    server = await startMockModel({ script: parseScript({ turns: [], fallback: "Alpha is done." }), port: 0 });
    // What a user writes: the provider, and the plugin by its installed package directory with options.
    writeFileSync(
      join(project, "opencode.json"),
      JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "mock",
            options: { baseURL: server.baseURL, apiKey: "x" },
            models: { scripted: { name: "scripted", limit: { context: 0, output: 1000 } } },
          },
        },
        plugin: [
          [pathToFileURL(join(project, "node_modules", "switch-swe")).href, { mode: "router", stateDir: ".rcm-state", auxModel: "off" }],
        ],
      }),
    );
    const home = join(root, "home");
    const env = isolatedOpencodeEnv(home);
    request = await run(
      opencode,
      ["run", "--format", "json", "--dir", project, "-m", "mock/scripted", "--auto", "--title", "packed plugin"],
      project,
      env,
      "Create alpha.py with ALPHA = 1.",
    );
  }, 15 * 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it("the tarball's exports resolve in the fresh project: ./server and ./opencode-plugin are the plugin", async () => {
    const probe = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const a = await import('switch-swe/server'); const b = await import('switch-swe/opencode-plugin'); console.log(JSON.stringify([a.default.id, typeof a.default.server, a.default === b.default, import.meta.resolve('switch-swe/server')]))",
      ],
      project,
    );
    expect(probe.code, probe.stderr).toBe(0);
    const [id, server, same, where] = JSON.parse(probe.stdout) as [string, string, boolean, string];
    expect([id, server, same]).toEqual(["switch-swe-rcm", "function", true]);
    expect(where).toBe(pathToFileURL(join(project, "node_modules", "switch-swe", "dist", "opencode-plugin", "index.js")).href);
  });

  it("OpenCode loads the installed package with its options, and RCM routes the request into its state file", () => {
    expect(request.code, request.stderr.slice(-2000)).toBe(0);
    const session = /"sessionID":"(ses_[^"]+)"/.exec(request.stdout)?.[1];
    expect(session).toBeDefined();
    const stateDir = join(project, ".rcm-state");
    const log = readFileSync(join(stateDir, "rcm.log"), "utf8");
    expect(log).toMatch(/loaded: mode=router threshold=0\.8 auxModel=off/);
    expect(log).toContain(join(project, "node_modules", "switch-swe"));
    const state = JSON.parse(readFileSync(join(stateDir, `${session}.json`), "utf8")) as {
      mode: string;
      router: { tasks: { id: string; label: string }[]; assignments: Record<string, { method: string }> };
      last?: { active: string };
    };
    expect(state.mode).toBe("router");
    expect(state.router.tasks).toEqual([expect.objectContaining({ id: "t1", label: "Create alpha.py with ALPHA = 1." })]);
    expect(Object.values(state.router.assignments)).toEqual([expect.objectContaining({ method: "first" })]);
    expect(state.last?.active).toBe("t1");
    // The scripted server answered the agent's step (the model call went through the project's provider).
    expect(server.requests().some((r) => r.path.endsWith("/chat/completions") && JSON.stringify(r.body).includes("Create alpha.py"))).toBe(
      true,
    );
    expect(readdirSync(project)).not.toContain("rcm.log");
    expect(existsSync(tarball)).toBe(true);
  });
});
