import { join } from "node:path";
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { continuationMessage, finalizationMessage, stageMessage } from "../../src/run/message-templates.js";
import { Ledger } from "../../src/run/ledger.js";
import type { ProgressEvent } from "../../src/run/progress-events.js";
import { estimateRemainingMs, formatDuration, jsonReporter, ttyReporter } from "../../src/run/progress.js";
import { logReporter, reporterFor } from "../../src/run/progress-log.js";
import { defaultLabel, type RunConfig } from "../../src/formats/run-config.js";
import { assertSameRun } from "../../src/run/same-run.js";
import { tempDir } from "../helpers/synthetic-dataset.js";

describe("message templates", () => {
  it("are exactly the documented texts", () => {
    expect(stageMessage("ledgerkit", "/runs/r/work/0a1b/w02", "Add a --json flag.")).toBe(
      "Repository: ledgerkit\nWorkspace: /runs/r/work/0a1b/w02\n\nAdd a --json flag.",
    );
    expect(finalizationMessage("ledgerkit", "/w")).toBe(
      "Repository: ledgerkit\nWorkspace: /w\n\nFinish the task in this workspace and leave it ready for evaluation. There are no further requirements.",
    );
    expect(continuationMessage("ledgerkit", "/w")).toBe(
      "Repository: ledgerkit\nWorkspace: /w\n\nYour previous turn on this request was stopped because it ran out of time. Continue working on the same request in this workspace.",
    );
  });
});

describe("the ledger", () => {
  it("numbers attempts per session, records how they end, and marks cut-off attempts interrupted", () => {
    const file = join(tempDir(), "ledger.sqlite");
    const l = Ledger.open(file);
    l.startInvocation(false);
    expect(l.begin("a.base", (n) => `/w/a${n}`)).toBe(1);
    l.end("a.base", 1, "infra_fault", "checkout failed");
    expect(l.begin("a.base", (n) => `/w/a${n}`)).toBe(2);
    l.end("a.base", 2, "finished");
    expect(l.begin("a.switch", (n) => `/w/s${n}`)).toBe(1);
    l.close();
    // A later process (after kill -9) finds the running attempt.
    const again = Ledger.open(file);
    again.startInvocation(true);
    const cut = again.markInterrupted("cut off");
    expect(cut.map((r) => [r.session, r.attempt, r.work_dir])).toEqual([["a.switch", 1, "/w/s1"]]);
    expect(again.finishedSessions()).toEqual(new Set(["a.base"]));
    expect(again.attempts().map((r) => [r.session, r.attempt, r.status, r.detail, r.invocation])).toEqual([
      ["a.base", 1, "infra_fault", "checkout failed", 1],
      ["a.base", 2, "finished", null, 1],
      ["a.switch", 1, "interrupted", "cut off", 1],
    ]);
    expect(again.begin("a.switch", (n) => `/w/s${n}`)).toBe(2);
    again.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(() => new Database(file).prepare("INSERT INTO attempts VALUES ('x', 1, 'done', 't', NULL, NULL, 1, '/w')").run()).toThrow(
      /CHECK constraint/,
    );
    db.close();
  });
});

describe("progress", () => {
  const t = "2026-01-01T00:00:00.000Z";
  const events: ProgressEvent[] = [
    { type: "run_start", time: t, run_dir: "/r", sessions: 4, skipped: 1, requests: 20, concurrency: 2 },
    { type: "session_start", time: t, session: "a.switch", attempt: 1, requests: 10 },
    { type: "request_start", time: t, session: "a.switch", index: 2, requests: 10, kind: "stage", workspace: "w03", continuation: false },
    {
      type: "request_end",
      time: t,
      session: "a.switch",
      index: 2,
      outcome: "timeout",
      duration_ms: 900_000,
      detail: "no yield within 900 s",
    },
    { type: "session_end", time: t, session: "a.switch", attempt: 1, status: "infra_fault", retry: true, detail: "checkout failed" },
    { type: "run_end", time: t, finished: 2, failed: 1, skipped: 1, interrupted: false, elapsed_ms: 3_723_000 },
  ];
  const sink = () => {
    let text = "";
    return {
      write: (s: string) => (text += s),
      get text() {
        return text;
      },
    };
  };

  it("prints one plain line per event when not a terminal", () => {
    const out = sink();
    const r = logReporter(out);
    for (const e of events) r.emit(e);
    expect(out.text.split("\n").filter(Boolean)).toEqual([
      `${t} run /r: 4 sessions, 1 already finished, concurrency 2`,
      `${t} a.switch: attempt 1 started (10 requests)`,
      `${t} a.switch: request 3/10 (stage, w03)`,
      `${t} a.switch: request 3 timeout in 900.0 s: no yield within 900 s`,
      `${t} a.switch: attempt 1 infra_fault (retrying): checkout failed`,
      `${t} run done: 2 finished, 1 failed, 1 skipped, 01:02:03`,
    ]);
  });

  it("without a terminal, counts finished sessions with an estimate, and verification at a bounded rate", () => {
    let now = 0;
    const out = sink();
    const r = logReporter(out, { milestones: true, timestamps: false, verifyEveryMs: 10_000, now: () => now });
    const end = (session: string): ProgressEvent => ({ type: "session_end", time: t, session, attempt: 1, status: "finished" });
    const req = (session: string): ProgressEvent => ({
      type: "request_end",
      time: t,
      session,
      index: 0,
      outcome: "yielded",
      duration_ms: 1,
    });
    const verify = (done: number): ProgressEvent => ({
      type: "verify",
      time: t,
      session: `s${done}`,
      resolved: done % 2 === 0,
      infra_fault: false,
      reused: false,
      done,
      total: 4,
    });
    r.emit({ type: "run_start", time: t, run_dir: "/r", sessions: 4, skipped: 1, requests: 6, concurrency: 2 });
    for (let i = 0; i < 3; i++) r.emit(req("a.base"));
    now = 60_000;
    r.emit(end("a.base"));
    for (let i = 0; i < 3; i++) r.emit(req("a.switch"));
    now = 120_000;
    r.emit(end("a.switch"));
    r.emit({ type: "session_end", time: t, session: "b.base", attempt: 1, status: "infra_fault", retry: true, detail: "checkout failed" });
    r.emit({ type: "session_end", time: t, session: "b.base", attempt: 2, status: "failed", detail: "agent crashed\ntrace" });
    for (const [at, done] of [
      [121_000, 1],
      [125_000, 2],
      [132_000, 3],
      [133_000, 4],
    ] as const) {
      now = at;
      r.emit(verify(done));
    }
    expect(out.text.split("\n").filter(Boolean)).toEqual([
      "run /r: 4 sessions, 1 already finished, concurrency 2",
      "session 2/4 finished: a.base (attempt 1) · elapsed 00:01:00 · left ~00:01:00",
      "session 3/4 finished: a.switch (attempt 1) · elapsed 00:02:00 · left ~00:00:00",
      "b.base: attempt 1 infra_fault (retrying): checkout failed",
      "session 4/4 failed: b.base (attempt 2): agent crashed · elapsed 00:02:00 · left ~00:00:00",
      "verified 1/4: s1 not resolved",
      "verified 3/4: s3 not resolved",
      "verified 4/4: s4 resolved",
    ]);
  });

  it("prints JSON lines with --json and picks the reporter from the flags and the stream", () => {
    const out = sink();
    const r = jsonReporter(out);
    r.emit(events[0]!);
    expect(JSON.parse(out.text)).toEqual(events[0]);
    // --json writes JSON lines to stdout, nothing to the terminal on stderr.
    const stdout = sink();
    const tty = Object.assign(sink(), { isTTY: true });
    reporterFor({ quiet: false, json: true }, stdout, tty).emit(events[0]!);
    expect(JSON.parse(stdout.text)).toEqual(events[0]);
    expect(tty.text).toBe("");
    // Without --json a terminal on stderr gets the live block (ANSI), stdout nothing.
    const stdout2 = sink();
    const tty2 = Object.assign(sink(), { isTTY: true });
    const live = reporterFor({ quiet: false, json: false }, stdout2, tty2);
    live.emit(events[0]!);
    live.close();
    expect(tty2.text).toContain("sessions done");
    expect(stdout2.text).toBe("");
    const quiet = sink();
    reporterFor({ quiet: true, json: false }, quiet, quiet).emit(events[0]!);
    expect(quiet.text).toBe("");
  });

  it("redraws a live block on a terminal: sessions done of total, running requests, elapsed, time left", () => {
    const out = sink();
    let now = 0;
    const r = ttyReporter({ ...out, write: out.write, isTTY: true, columns: 120 }, () => now);
    r.emit(events[0]!);
    r.emit(events[1]!);
    now = 10_000;
    r.emit(events[2]!);
    r.emit({ type: "request_end", time: t, session: "a.switch", index: 2, outcome: "yielded", duration_ms: 10_000 });
    now = 20_000;
    r.emit({ type: "session_end", time: t, session: "a.switch", attempt: 1, status: "finished" });
    r.close();
    const text = out.text;
    expect(text).toContain("\x1b[2A\x1b[0J"); // moves up over the previous block and clears it
    expect(text).toContain("0/4 sessions done");
    expect(text).toContain("  a.switch #1  request 3/10 stage w03  00:00:00");
    expect(text).toContain("left 00:03:10"); // 10 s for 1 of 20 requests: 19 left
    expect(text).toContain("1/4 sessions done");
  });

  it("estimates time left from the pace so far", () => {
    expect(estimateRemainingMs(1000, 0, 10)).toBeNull();
    expect(estimateRemainingMs(1000, 2, 10)).toBe(4000);
    expect(formatDuration(3_723_000)).toBe("01:02:03");
  });
});

describe("run.json on resume", () => {
  const config: RunConfig = {
    format: "switch-swe.run/1",
    created_at: "t",
    switch_swe_version: "0.1.0",
    dataset: { path: "/d", name: "sample", version: "1" },
    sessions_file: { path: "/s.json", sha256: "abc", seed: 0 },
    agent: { name: "oracle", options: { forget: "0.5" } },
    label: defaultLabel({ name: "oracle", options: { forget: "0.5" } }),
    seed: 0,
    condition: "both",
    session_filter: null,
    sessions_selected: ["a.base"],
    request_timeout_s: 900,
    max_continuations: 3,
    max_infra_retries: 2,
  };
  it("accepts the same run and names the first field that differs", () => {
    expect(config.label).toBe("oracle forget=0.5");
    expect(() => assertSameRun("run.json", config, { ...config, dataset: { ...config.dataset, path: "/moved" } })).not.toThrow();
    expect(() => assertSameRun("run.json", config, { ...config, sessions_file: { ...config.sessions_file, sha256: "def" } })).toThrow(
      /^run\.json: sessions_file\.sha256: the run was started with "abc", --sessions now gives "def"/,
    );
    expect(() => assertSameRun("run.json", config, { ...config, agent: { name: "nop", options: {} } })).toThrow(
      /^run\.json: agent\.name: /,
    );
    expect(() => assertSameRun("run.json", config, { ...config, dataset: { ...config.dataset, version: "2" } })).toThrow(
      /^run\.json: dataset: .*"sample@1".*"sample@2"/,
    );
  });

  it("refuses another --rcm-state; a run.json from before it counts as extractive", () => {
    const proxied: RunConfig = { ...config, rcm: { mode: "rcm", state: "model" } };
    expect(() => assertSameRun("run.json", proxied, { ...proxied, rcm: { mode: "rcm", state: "extractive" } })).toThrow(
      /^run\.json: rcm\.state: the run was started with "model", --rcm-state now gives "extractive"/,
    );
    expect(() =>
      assertSameRun("run.json", { ...config, rcm: { mode: "rcm" } }, { ...config, rcm: { mode: "rcm", state: "extractive" } }),
    ).not.toThrow();
    expect(() => assertSameRun("run.json", proxied, proxied)).not.toThrow();
  });
});
