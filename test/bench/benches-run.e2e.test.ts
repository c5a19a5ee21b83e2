import { describe, expect, it } from "vitest";
import { runBench, said } from "./bench-script.js";

// The benchmarks whose small configuration still runs real test suites, bubblewrap, cgroups or a
// redis-server with worker processes (BENCH_SMALL=1; see benches-run.test.ts for the others). Each must
// exit 0 and print its figure lines; no figure is checked. bench/real-pipeline.mjs needs the shipped real
// datasets' mirrors and minutes of test runs per task: it is not run here.
describe("benchmarks, small configuration (end to end)", () => {
  it("bench:verify verifies one task's two sessions cold, warm and again alone", async () => {
    const r = await runBench("verify.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^sample dataset: 1 of \d+ tasks, \d+ repositories; 2 sessions; concurrency 2$/m);
    expect(r.stdout).toMatch(/^cold pass: [\d.]+ s wall; set-up ran 1 time\(s\); per verification n=2 /m);
    expect(r.stdout).toMatch(/^warm pass: .*set-up ran 0 time\(s\); 2\/2 with setup_cached;/m);
    expect(r.stdout).toMatch(/^second verification of .*setup_cached=true, resolved=true/m);
  });

  it("bench:sandbox times sandbox and cgroup start-ups, checkouts and a run with and without the sandbox", async () => {
    const r = await runBench("sandbox.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^agent request sandbox start-up \(--network on\): median [\d.]+ ms \(plain \/bin\/true spawn: [\d.]+ ms/m);
    expect(r.stdout.match(/^agent request sandbox start-up, --network model \(.*\): median [\d.]+ ms/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/^verifier test-run sandbox start-up: median [\d.]+ ms/m);
    expect(r.stdout).toMatch(/^cgroup set-up \(make, start \/bin\/true in it, remove\): median [\d.]+ ms/m);
    expect(r.stdout.match(/^verifier checkout, .*: median [\d.]+ ms/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/^run of 1 sessions \(oracle, verified\) --sandbox none: [\d.]+ s$/m);
    expect(r.stdout).toMatch(/^run of 1 sessions \(oracle, verified\) --sandbox bwrap: [\d.]+ s$/m);
  });

  it("bench:queue runs two sessions on one worker process through a private redis-server", async () => {
    const r = await runBench("queue-fleet.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^1 runs x 2 sessions = 2 sessions, \d+ requests, agent sleeps 0.1 s per request$/m);
    expect(r.stdout).toMatch(
      /^1 worker\(s\): wall [\d.]+ s, ideal [\d.]+ s, ratio [\d.]+x; per session: coordinator CPU [\d.]+ ms, worker CPU [\d.]+ s/m,
    );
  });

  it("bench:mine-queue mines the small history here and on one worker process, the same manifest", async () => {
    const r = await runBench("mine-queue.mjs", [], 600_000);
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^local tasks mine \(--runs 1, 3 candidates\): wall [\d.]+ s; load /m);
    expect(r.stdout).toMatch(/^tasks mine --queue, 1 worker\(s\): wall [\d.]+ s \([\d.]+x the local run\); manifest identical; load /m);
  }, 600_000);
});
