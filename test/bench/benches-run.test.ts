import { describe, expect, it } from "vitest";
import { runBench, said } from "./bench-script.js";
import { skipWithout } from "../helpers/tools.js";

// Every benchmark of bench/ runs in its small configuration (BENCH_SMALL=1), so none can rot unnoticed:
// each exits 0 and prints its figure lines. No figure is checked: times say nothing on a shared machine.
// The ones that need redis-server, bubblewrap runs or the verifier's test runs: benches-run.e2e.test.ts.
// Runs the harness with its default sandbox: skipped with the reason where bwrap is missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");
describe("benchmarks, small configuration", () => {
  it("bench:sessions builds and validates generated sessions", async () => {
    const r = await runBench("sessions.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^tasks: 40 in 2 repositories -> \d+ pairs/m);
    expect(r.stdout).toMatch(/^build: [\d.]+ s, validate: [\d.]+ s, total: [\d.]+ s \(CPU [\d.]+ s\)$/m);
    expect(r.stdout).toMatch(/^sessions file: [\d.]+ MB; peak RSS: \d+ MB$/m);
  });

  it("bench:rcm times RCM's steps in both modes", async () => {
    const r = await runBench("rcm.mjs");
    expect(r.code, said(r)).toBe(0);
    for (const mode of ["router", "rcm"]) expect(r.stdout).toContain(`mode ${mode}: history 20..40 groups`);
    expect(r.stdout.match(/^ {2}plugin \(messages \+ core \+ edits\) +wall median [\d.]+ ms/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/^target < 20 ms per step on one core: (met|NOT met) \(worst p95 CPU/m);
  });

  it("bench:rcm-proxy times the RCM proxy per request in the four APIs", async () => {
    const r = await runBench("rcm-proxy.mjs");
    expect(r.code, said(r)).toBe(0);
    for (const api of ["openai-chat", "anthropic-messages", "openai-responses", "gemini"]) {
      expect(r.stdout).toMatch(
        new RegExp(`^${api}: 20 requests, last body \\d+ KiB; proxy CPU per request median [\\d.]+ ms, p95 [\\d.]+ ms`, "m"),
      );
    }
    expect(r.stdout).toMatch(/^target p95 < 20 ms CPU per request: (met|NOT met) \(worst p95 [\d.]+ ms; load average [\d.]+\)$/m);
  });

  it("bench:report builds and renders the report of a synthetic run, in process and through the CLI", async () => {
    const r = await runBench("report.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^synthetic run: 10 sessions, 4 model calls \+ 4 tool calls each/m);
    expect(r.stdout).toMatch(/^buildReport: +[\d.]+ s$/m);
    expect(r.stdout).toMatch(/^renderReport html: +[\d.]+ s \([\d.]+ MB\)$/m);
    expect(r.stdout).toMatch(/^CLI report --format json: [\d.]+ s wall .*peak RSS \d+ MB/m);
  });

  it.skipIf(missingTool)(
    "bench:run prints the harness's cost per phase for three agents, and a session's phases on a generated repository as copies and as overlays",
    async () => {
      const r = await runBench("run-overhead.mjs");
      expect(r.code, said(r)).toBe(0);
      const tables = r.stdout.split(/^(?=\S.*: 2 sessions, \d+ requests;)/m).slice(1);
      expect(tables.map((t) => t.split(" (")[0])).toEqual(["nop agent, --sandbox bwrap", "command agent", "command agent"]);
      for (const t of tables) {
        for (const phase of ["workspace_setup", "agent_start", "request", "evidence", "trajectory", "artifact", "cleanup", "other"]) {
          expect(t).toMatch(new RegExp(`^  ${phase} +\\d* \\| +[\\d.]+ +[\\d.]+ \\(`, "m"));
        }
        expect(t).toMatch(/^ {2}harness \(not request\) +\| +[\d.]+ +[\d.]+ \(.*\| +[\d.]+ +[\d.]+ \(/m);
      }
      expect(r.stdout).toMatch(/^ {2}workspace set-up per session \(5 checkouts\): +median [\d.]+ ms/m);
      expect(r.stdout).toMatch(/^generated repository: 200 files of 100 bytes/m);
      // Copies always; overlays where this machine can mount them, else the reason.
      expect(r.stdout).toMatch(
        /^ {2}copy, run 1: set-up of five workspaces with their first evidence [\d.]+ ms wall, [\d.]+ ms CPU; evidence per request [\d.]+ ms wall, [\d.]+ ms CPU; five patches .*; clean-up /m,
      );
      expect(r.stdout).toMatch(
        /^ {2}overlay(, run 1: set-up of five workspaces with their first evidence [\d.]+ ms wall, [\d.]+ ms CPU; evidence per request|: not available here \(.+\))/m,
      );
    },
  );

  it.skipIf(missingTool)("bench/verify-memory.mjs verifies a session with a 1 MB artifact in a fresh process", async () => {
    const r = await runBench("verify-memory.mjs");
    expect(r.code, said(r)).toBe(0);
    expect(r.stdout).toMatch(/^artifact +0 MB: verifier peak RSS \d+ MB \(applied true\)$/m);
    expect(r.stdout).toMatch(/^artifact +1 MB: verifier peak RSS \d+ MB \(applied true\)$/m);
  });
});
