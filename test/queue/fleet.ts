import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { packageRoot } from "../../src/core/package-paths.js";

export const cliPath = join(packageRoot, "dist", "cli", "main.js");

/** The secret a coordinator and its workers share (SWITCH_SWE_QUEUE_SECRET): every process these tests start inherits it, as a fleet's would. */
export const testQueueSecret = "switch-swe-test-queue-secret-0123456789abcdef";
process.env.SWITCH_SWE_QUEUE_SECRET = testQueueSecret;

/** A port nobody listens on right now (127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

export const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((res) =>
    child.exitCode !== null || child.signalCode !== null ? res(child.exitCode) : child.once("exit", (code) => res(code)),
  );

export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 120_000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A private redis-server on 127.0.0.1 and a free port, without persistence (as the tests need). */
export class RedisServer {
  private child: ChildProcess | null = null;
  constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly extra: string[] = [],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir, ...this.extra];
    this.child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    this.child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes("Ready to accept connections"), 20_000, "redis-server");
  }

  async stop(): Promise<void> {
    if (!this.child) return;
    const c = this.child;
    this.child = null;
    c.kill("SIGKILL");
    await exited(c);
  }
}

/** One `switch-swe worker` process with its own cache (a machine of its own), logging to a file. */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** `stallS`: how long a job may go without lock renewal; short enough to find a killed worker soon,
   * long enough that a worker slowed down by a loaded machine keeps its jobs. */
  constructor(root: string, n: number, queueUrl: string, extra: string[] = [], stallS = 15, env: NodeJS.ProcessEnv = {}) {
    const dir = join(root, `worker-${n}`);
    mkdirSync(dir, { recursive: true });
    this.logFile = join(dir, "worker.log");
    this.child = spawn(process.execPath, [cliPath, "worker", "--queue", queueUrl, "--stall-timeout", String(stallS), ...extra], {
      env: { ...process.env, SWITCH_SWE_CACHE: join(dir, "cache"), ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.child.stderr?.pipe(createWriteStream(this.logFile));
  }

  log(): string {
    try {
      return readFileSync(this.logFile, "utf8");
    } catch {
      return "";
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGKILL");
    await exited(this.child);
  }
}

/** Runs the CLI to its end, collecting its output. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = exited(child).then((code) => ({ code, stdout, stderr }));
  return { child, done };
}
