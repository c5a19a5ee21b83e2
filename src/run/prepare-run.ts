import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { firstProblems, inputError } from "../core/errors.js";
import { parseJsonWith, readJsonWith } from "../core/json-file.js";
import { loadDataset, type Dataset } from "../dataset/load.js";
import { sessionsFileSchema } from "../formats/sessions.js";
import { agentCapabilities, createAgent } from "../agents/registry.js";
import type { Agent } from "../agents/types.js";
import { rcmProxiedAgent } from "./rcm-proxy-agent.js";
import { packageVersion } from "../core/package-paths.js";
import { runFiles } from "../formats/run-layout.js";
import { nowIso } from "./progress-events.js";
import { emptyButLock } from "./run-dir-claim.js";
import { defaultLabel, recordedPath, runConfigSchema, type RunConfig } from "../formats/run-config.js";
import { assertSameRun } from "./same-run.js";
import { taskEnvironmentRecord } from "./task-environments.js";
import { selectSessions, type SelectedSession } from "./session-selection.js";
import { sessionsMismatch } from "./sessions-match.js";
import { limitsRecord } from "../confine/limits-record.js";
import { defaultLimits, parseLimits } from "../confine/limits.js";
import { confinementOf, sandboxRecord, type Confinement } from "../confine/confinement.js";
import { defaultConfineBackend } from "../confine/registry.js";
import { sha256 } from "../core/digest.js";
import { datasetDigest } from "../dataset/pack.js";
import type { SubmissionMode } from "./message-templates.js";
import { defaultRequestTimeoutS, maxContinuations, maxInfraRetries, type RunOptions } from "./run-options.js";

/** The harness's own agents are scored by their checkout (they were built so); real agents submit their patch, as in the paper (their capabilities say which). */
function defaultSubmission(agent: string): SubmissionMode {
  return agentCapabilities(agent).submission;
}

/** A run whose inputs were all checked, with the run.json it runs by (written by the caller, on a fresh run). */
export interface Prepared {
  runDir: string;
  config: RunConfig;
  dataset: Dataset;
  agent: Agent;
  selected: SelectedSession[];
  existing: boolean;
  /** Built once from run.json's records (a fresh run's from the flags). */
  confinement: Confinement;
}

/** Checks every input before anything is written (the caller holds the run directory's lock). */
export function prepareRun(runDir: string, opts: RunOptions): Prepared {
  const configFile = runFiles.config(runDir);
  let previous: RunConfig | null = null;
  if (opts.resume) {
    if (!existsSync(configFile)) throw inputError(runDir, "", "no run.json here: nothing to resume (start the run without --resume)");
    previous = readJsonWith(configFile, runConfigSchema);
  } else if (!emptyButLock(runDir)) {
    throw inputError(runDir, "", "already exists and is not empty (add --resume to continue the run in it, or choose another --out)");
  }

  const datasetPath = opts.dataset ?? (previous ? recordedPath(runDir, previous.dataset.path) : undefined);
  const sessionsPath = opts.sessions ?? (previous ? recordedPath(runDir, previous.sessions_file.path) : undefined);
  const agentName = opts.agent ?? previous?.agent.name;
  if (datasetPath === undefined) throw inputError("--dataset", "", "required");
  if (sessionsPath === undefined) throw inputError("--sessions", "", "required");
  if (agentName === undefined) throw inputError("--agent", "", "required");
  const agentOptions = opts.agentOptions ?? previous?.agent.options ?? {};

  const rcm = opts.rcm ?? previous?.rcm?.mode;
  // Model-written state is the default of mode rcm (the agent's own upstream is the auxiliary model); a
  // resumed run keeps what it recorded (absent: a run from before model-written state, extractive).
  const rcmState = opts.rcmState ?? (previous?.rcm ? (previous.rcm.state ?? "extractive") : rcm === "rcm" ? "model" : "extractive");
  if (opts.rcmState !== undefined && rcm === undefined)
    throw inputError("--rcm-state", "", "only with --rcm (the proxy's state memory); OpenCode's plugin takes --agent-opt rcm_state=model");
  const agent = rcm ? rcmProxiedAgent(agentName, agentOptions, rcm, rcmState) : createAgent(agentName, agentOptions);
  const can = agentCapabilities(agentName);
  const dataset = loadDataset(datasetPath);
  const { sessions, sessionsText } = readSessionsFor(sessionsPath, dataset);
  const condition = opts.condition ?? previous?.condition ?? "both";
  const filter =
    opts.sessionIds && opts.sessionIds.length > 0 ? [...opts.sessionIds] : opts.sessionIds ? null : (previous?.session_filter ?? null);
  const selected = selectSessions(sessions, condition, filter);
  if (selected.length === 0) throw inputError(resolve(sessionsPath), "pairs", "no session to run");
  const requestTimeoutS = opts.requestTimeoutS ?? previous?.request_timeout_s ?? defaultRequestTimeoutS;
  if (!(requestTimeoutS > 0)) throw inputError("--request-timeout", "", "must be a positive number of seconds");

  const config: RunConfig = {
    format: "switch-swe.run/1",
    created_at: previous?.created_at ?? nowIso(),
    switch_swe_version: previous?.switch_swe_version ?? packageVersion,
    // A resumed run keeps the digest it started with (run.json is written once).
    dataset: {
      path: dataset.root,
      name: dataset.manifest.name,
      version: dataset.manifest.version,
      sha256: previous ? previous.dataset.sha256 : datasetDigest(dataset.root),
    },
    sessions_file: { path: resolve(sessionsPath), sha256: sha256(sessionsText), seed: sessions.seed },
    // A resumed run keeps what the harness said when the run started (queue workers check their CLI against it).
    agent: { name: agentName, options: agentOptions, ...(previous?.agent.harness ? { harness: previous.agent.harness } : {}) },
    label: opts.label ?? previous?.label ?? `${defaultLabel({ name: agentName, options: agentOptions })}${rcm ? ` rcm-proxy=${rcm}` : ""}`,
    seed: opts.seed ?? previous?.seed ?? 0,
    condition,
    session_filter: filter,
    // A run started before the mode was recorded took the checkout: it is resumed so.
    submission: opts.submission ?? (previous ? (previous.submission ?? "checkout") : defaultSubmission(agentName)),
    sessions_selected: selected.map((s) => s.session),
    request_timeout_s: requestTimeoutS,
    max_continuations: previous?.max_continuations ?? maxContinuations,
    max_infra_retries: previous?.max_infra_retries ?? maxInfraRetries,
    sandbox: sandboxRecord(
      opts.sandbox ?? previous?.sandbox?.mode ?? defaultConfineBackend().mode,
      {
        network: opts.network ?? previous?.sandbox?.network ?? "model",
        agent: { name: agentName, confinable: can.confinable, cli: can.cli !== undefined, endpoints: agent.endpoints },
        unconfinedBecause: opts.unconfinedBecause,
      },
      opts.sandbox === undefined && previous ? { file: configFile, path: "sandbox.mode" } : undefined,
    ),
    ...(rcm ? { rcm: { mode: rcm, state: rcmState } } : {}),
    limits: limitsRecord(
      opts.limits ?? (previous?.limits ? parseLimits(previous.limits.requested, `${configFile}: limits.requested`) : defaultLimits),
      { name: agentName, limits: can.limits },
      opts.backend !== undefined,
    ),
  };
  const confinement = confinementOf(config, configFile);
  if (confinement.agent && !can.harnessSide) config.sandbox!.task_environment = taskEnvironmentRecord(dataset, selected);
  if (previous) assertSameRun(configFile, previous, config);
  return { runDir, config, dataset, agent, selected, existing: previous !== null, confinement };
}

/** The sessions file, read once (the hash in run.json is of the very bytes parsed), and checked against the dataset. */
function readSessionsFor(sessionsPath: string, dataset: Dataset) {
  const sessionsText = (() => {
    try {
      return readFileSync(resolve(sessionsPath));
    } catch {
      throw inputError(resolve(sessionsPath), "", "file not found");
    }
  })();
  const sessions = parseJsonWith(resolve(sessionsPath), sessionsText.toString("utf8"), sessionsFileSchema);
  const problems = sessionsMismatch(sessions, resolve(sessionsPath), dataset);
  // Built for another dataset: every other line follows from that one, so it is said alone.
  if (problems[0]?.path === "dataset")
    throw firstProblems(problems, 1, "problems that follow from it (its pairs name tasks and texts of that dataset)");
  if (problems.length > 0) throw firstProblems(problems, 3);
  return { sessions, sessionsText };
}
