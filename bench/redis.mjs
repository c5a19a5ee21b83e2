// A private redis-server on 127.0.0.1 and a free port, without persistence, for the queue benches.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

const freePort = () =>
  new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });

/** Starts it; `url` to give the CLI, `process` to kill at the end. */
export async function startRedis() {
  const port = await freePort();
  const process = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  await new Promise((r) => setTimeout(r, 500));
  return { url: `redis://127.0.0.1:${port}/0`, process };
}
