import { z } from "zod";
import type { CaseOutcome } from "./junit-xml.js";

/**
 * The verifier's second channel: the JSON lines our pytest plugin (src/testbed/pytest-launcher.py)
 * writes on an inherited pipe, each carrying the run's nonce. Parsed here into outcomes per node id,
 * the runner's exit status, and any tampering the plugin saw. Pure.
 */

const recordSchema = z.discriminatedUnion("t", [
  z.object({ t: z.literal("start"), n: z.string(), pid: z.number() }),
  z.object({ t: z.literal("report"), n: z.string(), id: z.string(), when: z.string(), outcome: z.string() }),
  z.object({ t: z.literal("collect"), n: z.string(), id: z.string(), outcome: z.string() }),
  z.object({ t: z.literal("tamper"), n: z.string(), what: z.string() }),
  z.object({ t: z.literal("crash"), n: z.string(), what: z.string() }),
  z.object({ t: z.literal("finish"), n: z.string(), exitstatus: z.number().int() }),
]);

export interface RunnerStream {
  started: boolean;
  /** pytest's exit status as the runner saw it; null when the runner never finished (os._exit, crash, kill). */
  exitStatus: number | null;
  /** Outcome per node id, pytest's rules: a failure in setup or teardown is `error`, in the call `failed`. */
  cases: Map<string, CaseOutcome>;
  /** Node ids (files, directories) whose collection failed. */
  collectionErrors: string[];
  /** The exception that ended pytest before its session finished, in pytest's words (`Type: message`), or null. */
  crash: string | null;
  /** Tampering the plugin observed (runner functions replaced, the report written by someone else). */
  tamper: string[];
  /** Lines that are not ours: malformed, or without the run's nonce (someone else wrote on the channel). */
  foreign: number;
}

const rank: Record<CaseOutcome, number> = { passed: 0, skipped: 1, failed: 2, error: 3 };

function phaseOutcome(when: string, outcome: string): CaseOutcome {
  if (outcome === "failed") return when === "call" ? "failed" : "error";
  if (outcome === "skipped") return "skipped";
  return "passed";
}

export function parseRunnerStream(text: string, nonce: string): RunnerStream {
  const s: RunnerStream = { started: false, exitStatus: null, crash: null, cases: new Map(), collectionErrors: [], tamper: [], foreign: 0 };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    let rec;
    try {
      rec = recordSchema.parse(JSON.parse(line));
    } catch {
      s.foreign++;
      continue;
    }
    if (rec.n !== nonce || (rec.t === "start") === s.started || (s.exitStatus !== null && rec.t !== "tamper")) {
      s.foreign++;
      continue;
    }
    if (rec.t === "start") s.started = true;
    else if (rec.t === "finish") s.exitStatus = rec.exitstatus;
    else if (rec.t === "tamper") s.tamper.push(rec.what);
    else if (rec.t === "crash") s.crash ??= rec.what;
    else if (rec.t === "collect") s.collectionErrors.push(rec.id);
    else {
      const o = phaseOutcome(rec.when, rec.outcome);
      const prev = s.cases.get(rec.id);
      if (prev === undefined || rank[o] > rank[prev]) s.cases.set(rec.id, o);
    }
  }
  return s;
}
