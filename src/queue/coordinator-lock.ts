import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { inputError } from "../core/errors.js";
import { processAlive } from "../core/process.js";
import { keys } from "./keys.js";

const ttlMs = 30_000;

/**
 * One coordinator per run, across machines: a key in Redis that expires unless renewed. A key left by a
 * dead process of this host is taken over at once; any other live holder is bad input.
 */
export async function acquireCoordinatorLock(
  redis: Redis,
  runId: string,
  runDir: string,
): Promise<{ renew: () => Promise<void>; release: () => Promise<void> }> {
  const key = keys.coordinator(runId);
  const me = `${hostname()} ${process.pid} ${new Date().toISOString()}`;
  for (let tries = 0; tries < 2; tries++) {
    if ((await redis.set(key, me, "PX", ttlMs, "NX")) === "OK") break;
    const holder = (await redis.get(key)) ?? "";
    const [host, pidText, since] = holder.split(" ");
    const pid = Number(pidText);
    if (host === hostname() && Number.isInteger(pid) && !processAlive(pid)) {
      await redis.del(key);
      continue;
    }
    if (holder === "") continue;
    const left = Math.max(1, Math.ceil((await redis.pttl(key)) / 1000));
    throw inputError(
      runDir,
      "",
      `another coordinator runs this run (${host} pid ${pidText}, since ${since}); if it is gone, its claim expires in ${left} s`,
    );
  }
  return {
    renew: async () => {
      // Re-set also when Redis lost the key (a restart without persistence).
      const cur = await redis.get(key);
      if (cur === null || cur === me) await redis.set(key, me, "PX", ttlMs);
    },
    release: async () => {
      if ((await redis.get(key)) === me) await redis.del(key);
    },
  };
}
