import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendUnlessFenced, fenceAttempt, storeResult } from "../../src/queue/attempt-fence.js";
import { tempDir } from "../helpers/temp.js";
import { freePort, RedisServer } from "./fleet.js";
import { skipWithout } from "../helpers/tools.js";

// Needs redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "redis-server");

// The fence between a coordinator that gives an attempt up and a worker that comes back with it, on a
// real redis-server: whichever writes the attempt's result key first wins, the other learns it.
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = new RedisServer(await freePort(), join(tempDir("switch-swe-fence-"), "redis"));
  await server.start();
  redis = new Redis(server.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe.skipIf(missingTool)("attempt fence", () => {
  it("a late result after the coordinator gave the attempt up is neither stored nor read", async () => {
    const result = "switch-swe:run:r1:result:s.base:1";
    expect(await fenceAttempt(redis, result)).toBeNull();
    expect(await storeResult(redis, result, Buffer.from("late result"))).toBe(false);
    // A second coordinator (after a restart) sees the same decision, not a result.
    expect(await fenceAttempt(redis, result)).toBeNull();
    expect(await redis.ttl(result)).toBeGreaterThan(0);
  });

  it("a result stored just before the coordinator's fence is taken, not thrown away", async () => {
    const result = "switch-swe:run:r1:result:s.base:2";
    expect(await storeResult(redis, result, Buffer.from("in time"))).toBe(true);
    expect((await fenceAttempt(redis, result))?.toString()).toBe("in time");
    expect(await storeResult(redis, result, Buffer.from("a second copy"))).toBe(false);
    expect((await redis.getBuffer(result))?.toString()).toBe("in time");
  });

  it("a fenced attempt's trajectory copy is not recreated", async () => {
    const traj = "switch-swe:run:r1:trajectory:s.switch:1";
    const result = "switch-swe:run:r1:result:s.switch:1";
    expect(await appendUnlessFenced(redis, traj, result, Buffer.from("line 1\n"))).toBe(true);
    expect(await appendUnlessFenced(redis, traj, result, Buffer.from("line 2\n"))).toBe(true);
    expect((await redis.getBuffer(traj))?.toString()).toBe("line 1\nline 2\n");
    expect(await fenceAttempt(redis, result)).toBeNull();
    await redis.del(traj);
    expect(await appendUnlessFenced(redis, traj, result, Buffer.from("line 3\n"))).toBe(false);
    expect(await redis.exists(traj)).toBe(0);
  });
});
