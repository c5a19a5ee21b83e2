import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { formatProblem, inputError } from "../../core/errors.js";
import { readJsonWith, toJsonText, writeFileAtomic, writeJsonAtomic } from "../../core/json-file.js";
import {
  RETRY_ON,
  buildPromptSet,
  datasetLabel,
  datasetWarnings,
  loadHandoffDataset,
  makeTemplate,
  rawLogPath,
  recordProblems,
  runHandoff,
  runScorerChecks,
  scoreJson,
  scoreSubmission,
  scoreText,
  submissionSchema,
  writePromptSet,
  type RetryOn,
} from "../../handoff/index.js";
import { ExitCode } from "../exit-codes.js";
import { parseCount as count } from "../options.js";
import { KNOWN_BASE_URLS, parseTemperature, providerModel } from "../model-endpoint.js";

function retryOn(value: string): RetryOn[] {
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!(RETRY_ON as readonly string[]).includes(item))
      throw new InvalidArgumentError(`--retry-on takes ${RETRY_ON.join(", ")} (comma-separated), got "${item}"`);
  }
  return [...new Set(items)] as RetryOn[];
}

interface RunFlags {
  model: { provider: string; model: string };
  baseUrl?: string;
  out?: string;
  apiKeyEnv: string;
  temperature: number | null;
  systemPrompt?: string;
  maxOutputTokens?: number;
  seed?: number;
  retries: number;
  retryOn?: RetryOn[];
  retryDelayMs: number;
  timeoutS: number;
}

/** Each problem line once (the record check and the scorer may notice the same thing). */
function uniqueScoreProblems<T extends { path: string; message: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((p) => !seen.has(`${p.path}\0${p.message}`) && seen.add(`${p.path}\0${p.message}`) !== undefined);
}

function addValidate(handoff: Command): void {
  handoff
    .command("validate")
    .description("check a handoff dataset file; every problem on its own line")
    .argument("<dataset>", "dataset JSON file")
    .action((file: string) => {
      const loaded = loadHandoffDataset(file);
      for (const w of datasetWarnings(file, loaded.dataset)) process.stderr.write(`${formatProblem(w)}\n`);
      process.stdout.write(`${file}: valid, ${datasetLabel(loaded)}, sha256 ${loaded.sha256}\n`);
    });
}

function addValidateScorer(handoff: Command): void {
  handoff
    .command("validate-scorer")
    .description("self-test of the scorer on built-in fixtures (perfect, empty, hand-computed partial answers)")
    .action(() => {
      const checks = runScorerChecks();
      for (const c of checks) process.stdout.write(`${c.ok ? "ok  " : "FAIL"}  ${c.name}${c.ok ? "" : ` (${c.detail})`}\n`);
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(
        failed === 0 ? `all ${checks.length} scorer checks passed\n` : `${failed} of ${checks.length} scorer checks failed\n`,
      );
      if (failed > 0) process.exitCode = ExitCode.checkFailed;
    });
}

function addPrompts(handoff: Command): void {
  handoff
    .command("prompts")
    .description("write one prompt file per case x condition, plus index.json with their sha256")
    .argument("<dataset>", "dataset JSON file")
    .requiredOption("--out <dir>", "directory to write the prompts to")
    .action((file: string, o: { out: string }) => {
      const loaded = loadHandoffDataset(file);
      const set = buildPromptSet(loaded);
      writePromptSet(set, o.out);
      process.stdout.write(`${o.out}: ${set.files.length} prompts for ${datasetLabel(loaded)}, index in ${join(o.out, "index.json")}\n`);
    });
}

function addTemplate(handoff: Command): void {
  handoff
    .command("template")
    .description("write an empty submission (every answer null) to fill in by hand")
    .argument("<dataset>", "dataset JSON file")
    .requiredOption("--out <file>", "submission file to write")
    .option("--force", "overwrite an existing file")
    .action((file: string, o: { out: string; force?: boolean }) => {
      const loaded = loadHandoffDataset(file);
      if (existsSync(o.out) && !o.force) throw inputError(o.out, "", "already exists (use --force to overwrite it)");
      writeJsonAtomic(o.out, makeTemplate(loaded));
      process.stdout.write(`${o.out}: template for ${datasetLabel(loaded)}; fill in "record" and every null answer\n`);
    });
}

function addScore(handoff: Command): void {
  handoff
    .command("score")
    .description("score a submission: per field, per case and condition, per condition and overall (0-100)")
    .argument("<dataset>", "dataset JSON file")
    .requiredOption("--submission <file>", "submission JSON file")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
    .option("--output <file>", "write the report to this file instead of stdout")
    .action((file: string, o: { submission: string; format: "text" | "json"; output?: string }) => {
      const loaded = loadHandoffDataset(file);
      const submission = readJsonWith(o.submission, submissionSchema);
      const result = scoreSubmission(loaded.dataset, submission);
      const problems = uniqueScoreProblems([...recordProblems(submission.record, loaded), ...result.problems]);
      const report =
        o.format === "json"
          ? toJsonText(scoreJson(result, problems, submission.record))
          : scoreText(
              result,
              problems,
              submission.record,
              loaded.dataset.rubric,
              `handoff score of ${basename(o.submission)} on ${datasetLabel(loaded)}`,
            );
      if (o.output === undefined) process.stdout.write(report);
      else {
        writeFileAtomic(o.output, report);
        process.stderr.write(`${o.output}: overall ${result.overall.toFixed(2)}, ${problems.length} problems listed\n`);
      }
    });
}

function addRun(handoff: Command): void {
  handoff
    .command("run")
    .description("ask a model every prompt (fresh conversation each) through an OpenAI-compatible API and write the submission")
    .argument("<dataset>", "dataset JSON file")
    .requiredOption("--model <provider:model>", "provider and exact model id, e.g. openai:gpt-4.1-2025-04-14", (v) => providerModel(v))
    .option("--base-url <url>", `OpenAI-compatible base URL (default for ${Object.keys(KNOWN_BASE_URLS).join(", ")})`)
    .option("--out <file>", "submission file (default: handoff-PROVIDER-MODEL.json); raw responses go next to it in .raw.jsonl")
    .option("--api-key-env <name>", "environment variable holding the API key (may be unset for local servers)", "OPENAI_API_KEY")
    .option("--temperature <t>", 'sampling temperature, or "default" to send none', parseTemperature("--temperature"), 0)
    .option("--system-prompt <text>", "system prompt (default: none; the prompt file is the whole request)")
    .option("--max-output-tokens <n>", "cap on output tokens (default: the provider's)", count("--max-output-tokens"))
    .option("--seed <n>", "sampling seed, for providers that honour one", count("--seed"))
    .option("--retries <n>", "retries per case and condition, only on what --retry-on names", count("--retries"), 0)
    .option("--retry-on <kinds>", `what a retry is for: ${RETRY_ON.join(", ")} (comma-separated)`, retryOn)
    .option("--retry-delay-ms <n>", "wait before each retry", count("--retry-delay-ms"), 1000)
    .option("--timeout-s <n>", "deadline of one request", count("--timeout-s"), 300)
    .action(async (file: string, o: RunFlags) => {
      if (o.retries > 0 && (o.retryOn === undefined || o.retryOn.length === 0))
        throw inputError("--retries", "", "needs --retry-on (what the retries are for)");
      if (o.retries === 0 && o.retryOn !== undefined) throw inputError("--retry-on", "", "needs --retries N > 0");
      const baseURL = o.baseUrl ?? KNOWN_BASE_URLS[o.model.provider];
      if (baseURL === undefined) throw inputError("--base-url", "", `needed for provider "${o.model.provider}"`);
      const loaded = loadHandoffDataset(file);
      const out = o.out ?? `handoff-${o.model.provider}-${o.model.model.replace(/[^A-Za-z0-9._-]+/g, "_")}.json`;
      const apiKey = process.env[o.apiKeyEnv] || undefined;
      if (apiKey === undefined) process.stderr.write(`note: ${o.apiKeyEnv} is not set; requests carry no API key\n`);
      const settings = {
        provider: o.model.provider,
        model: o.model.model,
        host: baseURL,
        temperature: o.temperature,
        systemPrompt: o.systemPrompt ?? "",
        retryPolicy: { retries: o.retries, retry_on: o.retryOn ?? [], delay_ms: o.retries > 0 ? o.retryDelayMs : 0 },
        maxOutputTokens: o.maxOutputTokens ?? null,
        seed: o.seed ?? null,
      };
      const { openAICompatibleClient } = await import("../../handoff/model-client.js");
      const ask = openAICompatibleClient({ ...settings, baseURL, apiKey, system: settings.systemPrompt, timeoutMs: o.timeoutS * 1000 });
      const summary = await runHandoff({ loaded, out, settings, ask, log: (line) => process.stdout.write(`${line}\n`) });
      const u = summary.usage;
      process.stdout.write(
        `${out}: ${summary.answered} answered, ${summary.invalid} not valid JSON, ${summary.skipped} already answered, ${summary.failed} failed` +
          ` (${u.input_tokens ?? "?"} input, ${u.output_tokens ?? "?"} output tokens this run); raw responses in ${rawLogPath(out)}\n`,
      );
      if (summary.failed > 0) {
        process.stdout.write(`run the same command again to ask the ${summary.failed} failed case/conditions again\n`);
        process.exitCode = ExitCode.checkFailed;
      } else process.stdout.write(`score it: switch-swe handoff score ${file} --submission ${out}\n`);
    });
}

function addFromRun(handoff: Command): void {
  handoff
    .command("from-run")
    .description("build a handoff dataset from a run's recorded switched sessions: one case per focus return")
    .argument("<run-dir>", "run directory (switch-swe run)")
    .requiredOption("--out <file>", "dataset file to write")
    .option("--session <id...>", "only these switched sessions")
    .option("--force", "overwrite an existing file")
    .action(async (runDir: string, o: { out: string; session?: string[]; force?: boolean }) => {
      if (existsSync(o.out) && !o.force) throw inputError(o.out, "", "already exists (use --force to overwrite it)");
      const { handoffFromRun } = await import("../../handoff/from-run/index.js");
      const dataset = handoffFromRun(runDir, o.session ? { sessions: o.session } : {});
      writeJsonAtomic(o.out, dataset);
      const loaded = loadHandoffDataset(o.out);
      const warnings = datasetWarnings(o.out, loaded.dataset).length;
      process.stdout.write(
        `${o.out}: ${datasetLabel(loaded)} from ${runDir}${warnings > 0 ? `, ${warnings} warnings (handoff validate lists them)` : ""}\n`,
      );
      process.stdout.write(`next: switch-swe handoff prompts ${o.out} --out DIR, or handoff run ${o.out} --model PROVIDER:MODEL\n`);
    });
}

export function registerHandoff(program: Command): void {
  const handoff = program
    .command("handoff")
    .description("the handoff continuity benchmark: can a model recover the state of interrupted work?");
  addValidate(handoff);
  addValidateScorer(handoff);
  addPrompts(handoff);
  addTemplate(handoff);
  addScore(handoff);
  addRun(handoff);
  addFromRun(handoff);
}
