import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { InputError, type Problem } from "../core/errors.js";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { CONDITIONS, type Condition } from "./fields.js";
import type { HandoffCase } from "./dataset-schema.js";
import type { LoadedHandoffDataset } from "./load-dataset.js";
import { RequestFailed, type AskModel, type ModelReply } from "./model-reply.js";
import { parseModelResponse } from "./parse-response.js";
import { PROMPT_VERSION, renderPrompt } from "./prompt.js";
import { TOOL, datasetRef } from "./record.js";
import {
  submissionSchema,
  type ResponseOutcome,
  type RetryPolicy,
  type Submission,
  type SubmissionRecord,
  type Usage,
} from "./submission-schema.js";
import { sha256 } from "../core/digest.js";

/** Everything that decides what the model was asked: it goes into the record, and a resumed run must match it. */
export interface RunSettings {
  provider: string;
  model: string;
  host: string;
  temperature: number | null;
  systemPrompt: string;
  retryPolicy: RetryPolicy;
  maxOutputTokens: number | null;
  seed: number | null;
}

export interface RunOptions {
  loaded: LoadedHandoffDataset;
  out: string;
  settings: RunSettings;
  ask: AskModel;
  log: (line: string) => void;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Stop after this many requests in a row failed (a dead endpoint should not be hammered). */
  maxConsecutiveFailures?: number;
}

export interface RunSummary {
  answered: number;
  invalid: number;
  skipped: number;
  failed: number;
  stoppedEarly: boolean;
  usage: Usage;
}

/** `out.json` keeps its raw responses in `out.raw.jsonl`, next to it. */
export function rawLogPath(out: string): string {
  return `${out.endsWith(".json") ? out.slice(0, -".json".length) : out}.raw.jsonl`;
}

function freshRecord(loaded: LoadedHandoffDataset, s: RunSettings, date: Date): SubmissionRecord {
  return {
    provider: s.provider,
    model: s.model,
    model_version: "",
    date: date.toISOString(),
    temperature: s.temperature,
    system_prompt: s.systemPrompt,
    host: s.host,
    retry_policy: s.retryPolicy,
    max_output_tokens: s.maxOutputTokens,
    seed: s.seed,
    dataset: datasetRef(loaded),
    prompt_version: PROMPT_VERSION,
    tool: TOOL,
    usage: { input_tokens: null, output_tokens: null, total_tokens: null },
  };
}

/** Fields of an existing record that differ from this run's settings; a resumed run must not mix settings. */
export function settingsMismatch(existing: SubmissionRecord, fresh: SubmissionRecord): string[] {
  const keys = [
    "provider",
    "model",
    "host",
    "temperature",
    "system_prompt",
    "retry_policy",
    "max_output_tokens",
    "seed",
    "prompt_version",
  ] as const;
  const differs = keys.filter((k) => JSON.stringify(existing[k]) !== JSON.stringify(fresh[k]));
  if (existing.dataset.sha256 !== fresh.dataset.sha256) return [...differs, "dataset.sha256"];
  return differs;
}

function addUsage(a: Usage | undefined, b: Usage): Usage {
  const add = (x: number | null | undefined, y: number | null) => (x == null && y == null ? null : (x ?? 0) + (y ?? 0));
  return {
    input_tokens: add(a?.input_tokens, b.input_tokens),
    output_tokens: add(a?.output_tokens, b.output_tokens),
    total_tokens: add(a?.total_tokens, b.total_tokens),
  };
}

function addModelVersion(record: SubmissionRecord, version: string | undefined): void {
  if (!version) return;
  const seen = record.model_version.split(", ").filter(Boolean);
  if (!seen.includes(version)) record.model_version = [...seen, version].join(", ");
}

/** Answers in dataset order, so a resumed file reads the same as one written in a single run. */
function ordered(loaded: LoadedHandoffDataset, sub: Submission): Submission {
  const sortBy = <T>(byCase: Record<string, Partial<Record<Condition, T>>>) => {
    const out: Record<string, Partial<Record<Condition, T>>> = {};
    const ids = [...loaded.dataset.cases.map((c) => c.id), ...Object.keys(byCase)];
    for (const id of ids) {
      const entry = byCase[id];
      if (entry === undefined || out[id] !== undefined) continue;
      out[id] = Object.fromEntries(CONDITIONS.flatMap((k) => (entry[k] === undefined ? [] : [[k, entry[k]]])));
    }
    return out;
  };
  return { record: sub.record, answers: sortBy(sub.answers), ...(sub.responses ? { responses: sortBy(sub.responses) } : {}) };
}

function loadOrStart(o: RunOptions, fresh: SubmissionRecord): Submission {
  if (!existsSync(o.out)) return { record: fresh, answers: {}, responses: {} };
  const existing = readJsonWith(o.out, submissionSchema);
  const differs = settingsMismatch(existing.record, fresh);
  if (differs.length > 0) {
    const problems: Problem[] = differs.map((k) => ({
      file: o.out,
      path: `record.${k}`,
      message: `differs from this run's settings; resume with the same settings or write to another --out`,
    }));
    throw new InputError(problems);
  }
  return { ...existing, responses: existing.responses ?? {} };
}

function describeTokens(u: Usage): string {
  return `${u.input_tokens ?? "?"} in / ${u.output_tokens ?? "?"} out tokens`;
}

/** The case x conditions not answered yet, in dataset order; counts the answered ones as skipped. */
function pendingCases(o: RunOptions, sub: Submission, summary: RunSummary): { caseIndex: number; condition: Condition }[] {
  const todo: { caseIndex: number; condition: Condition }[] = [];
  o.loaded.dataset.cases.forEach((c, caseIndex) => {
    for (const condition of CONDITIONS) {
      if (sub.answers[c.id]?.[condition] !== undefined || sub.responses?.[c.id]?.[condition] !== undefined) summary.skipped++;
      else todo.push({ caseIndex, condition });
    }
  });
  return todo;
}

/** Counts and logs how one case x condition ended; false when its request failed (nothing recorded). */
function recordOutcome(
  o: RunOptions,
  summary: RunSummary,
  what: string,
  outcome: ResponseOutcome | undefined,
  failure: string | undefined,
): boolean {
  if (outcome === undefined) {
    summary.failed++;
    o.log(`${what}: request failed (${failure ?? "unknown"}); not recorded, a later run will ask again`);
    return false;
  }
  if (outcome.outcome === "answered") summary.answered++;
  else summary.invalid++;
  const tokens = describeTokens(outcome.usage ?? { input_tokens: null, output_tokens: null, total_tokens: null });
  o.log(`${what}: ${outcome.outcome === "answered" ? "answered" : `not valid JSON (${outcome.detail}), scores 0`} (${tokens})`);
  return true;
}

interface AskContext {
  o: RunOptions;
  sleep: (ms: number) => Promise<void>;
  now: () => Date;
  raw: string;
  summary: RunSummary;
  sub: Submission;
}

/** One case under one condition: asked, logged raw, retried as the policy declares; its outcome, or the last failure. */
async function askCase(ctx: AskContext, c: HandoffCase, condition: Condition): Promise<{ outcome?: ResponseOutcome; failure?: string }> {
  const { o, sleep, now, raw, summary, sub } = ctx;
  const policy = o.settings.retryPolicy;
  const prompt = renderPrompt(c, condition);
  const promptSha = sha256(prompt);
  let usage: Usage | undefined;
  let outcome: ResponseOutcome | undefined;
  let failure: string | undefined;
  for (let attempt = 1; attempt <= 1 + policy.retries; attempt++) {
    const started = now();
    const entry = { case: c.id, condition, attempt, started: started.toISOString(), prompt_sha256: promptSha };
    let reply: ModelReply;
    try {
      reply = await o.ask(prompt);
    } catch (e) {
      if (!(e instanceof RequestFailed)) throw e;
      appendFileSync(raw, `${JSON.stringify({ ...entry, outcome: "http-error", error: e.message })}\n`);
      failure = e.message;
      if (policy.retry_on.includes("http-error") && attempt <= policy.retries) {
        o.log(`${c.id} ${condition}: request failed (${e.message}); retry ${attempt} of ${policy.retries} as declared`);
        await sleep(policy.delay_ms);
        continue;
      }
      break;
    }
    failure = undefined;
    usage = addUsage(usage, reply.usage);
    summary.usage = addUsage(summary.usage, reply.usage);
    sub.record.usage = addUsage(sub.record.usage, reply.usage);
    addModelVersion(sub.record, reply.modelVersion);
    const parsed = parseModelResponse(reply.text);
    appendFileSync(raw, `${JSON.stringify({ ...entry, outcome: parsed.kind === "answer" ? "answered" : "invalid-json", ...reply })}\n`);
    const meta = {
      attempts: attempt,
      ...(reply.modelVersion ? { model_version: reply.modelVersion } : {}),
      ...(reply.finishReason ? { finish_reason: reply.finishReason } : {}),
      usage: usage,
    };
    if (parsed.kind === "invalid-json") {
      if (policy.retry_on.includes("invalid-json") && attempt <= policy.retries) {
        o.log(`${c.id} ${condition}: not valid JSON (${parsed.detail}); retry ${attempt} of ${policy.retries} as declared`);
        await sleep(policy.delay_ms);
        continue;
      }
      outcome = { outcome: "invalid-json", detail: parsed.detail, ...meta };
    } else {
      outcome = { outcome: "answered", ...(parsed.problems.length > 0 ? { problems: parsed.problems } : {}), ...meta };
      (sub.answers[c.id] ??= {})[condition] = parsed.answers;
    }
    break;
  }
  return { ...(outcome !== undefined ? { outcome } : {}), ...(failure !== undefined ? { failure } : {}) };
}

/**
 * Asks the model every case x condition not answered yet, each prompt in a fresh conversation,
 * retrying only as the declared policy says. Every attempt is appended to the raw log; the
 * submission is rewritten atomically after each case and condition, so a stopped run resumes.
 */
export async function runHandoff(o: RunOptions): Promise<RunSummary> {
  const now = o.now ?? (() => new Date());
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxConsecutive = o.maxConsecutiveFailures ?? 3;
  const fresh = freshRecord(o.loaded, o.settings, now());
  const sub = loadOrStart(o, fresh);
  const responses = sub.responses!;
  const raw = rawLogPath(o.out);
  mkdirSync(dirname(raw), { recursive: true });
  const summary: RunSummary = {
    answered: 0,
    invalid: 0,
    skipped: 0,
    failed: 0,
    stoppedEarly: false,
    usage: { input_tokens: null, output_tokens: null, total_tokens: null },
  };

  const todo = pendingCases(o, sub, summary);
  if (summary.skipped > 0) o.log(`resuming ${o.out}: skipping ${summary.skipped} case/conditions already answered, ${todo.length} to go`);

  let consecutiveFailures = 0;
  for (const { caseIndex, condition } of todo) {
    const c = o.loaded.dataset.cases[caseIndex]!;
    const { outcome, failure } = await askCase({ o, sleep, now, raw, summary, sub }, c, condition);
    consecutiveFailures = recordOutcome(o, summary, `${c.id} ${condition}`, outcome, failure) ? 0 : consecutiveFailures + 1;
    if (outcome !== undefined) (responses[c.id] ??= {})[condition] = outcome;
    writeJsonAtomic(o.out, ordered(o.loaded, sub));
    if (consecutiveFailures >= maxConsecutive) {
      summary.stoppedEarly = true;
      o.log(`stopping: ${consecutiveFailures} requests in a row failed`);
      break;
    }
  }
  if (!existsSync(o.out)) writeJsonAtomic(o.out, ordered(o.loaded, sub));
  return summary;
}
