import { assertRunDir } from "../formats/run-dir-check.js";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError, inputError, zodProblems } from "../core/errors.js";
import { readJson, readJsonWith } from "../core/json-file.js";
import { mapPool } from "../core/pool.js";
import { loadDatasetCollecting } from "../dataset/load.js";
import { datasetDigest } from "../dataset/pack.js";
import { defaultLabel, recordedPath, runConfigReadSchema, type RunConfigRead } from "../formats/run-config.js";
import { runFiles } from "../formats/run-layout.js";
import { sessionSummaryReadSchema, type SessionSummaryRead } from "../formats/session-summary.js";
import { sessionId, sessionsFileSchema, type SessionsFile } from "../formats/sessions.js";
import { verdictSchema, type Verdict } from "../formats/verdict.js";
import { readVerdictKey, sealMatches } from "../formats/verdict-seal.js";
import { addUsage, emptyUsage, type UsageTally as Usage } from "../formats/usage.js";
import { artifactLines, taskMaterial, type ArtifactLines, type TaskMaterial } from "./contamination.js";
import { readTrajectorySummary, type TrajectorySummary } from "./trajectory-summary.js";
import { sha256 } from "../core/digest.js";

/** Artifacts larger than this are not read for the contamination signature (it is then unavailable). */
const maxArtifactBytes = 4 * 1024 * 1024;

/** Which stage introduced each F2P test, and which tests are F2P or P2P, for one task. */
export interface TaskTests {
  stages: number;
  /** The highest stage that introduces an F2P test (0 when none): "the last stage" of stage attribution. */
  lastTestedStage: number;
  f2pStage: Map<string, number>;
  f2p: Set<string>;
  p2p: Set<string>;
  /** The task's requests and reference patches, for the contamination signature. */
  material: TaskMaterial;
}

export interface SessionInput {
  id: string;
  trajectory: TrajectorySummary | null;
  summary: SessionSummaryRead | null;
  verdict: Verdict | null;
  /** A verdict.json that exists but cannot be read. */
  verdictProblem: string | null;
  hasArtifact: boolean;
  /** The artifact's lines for the contamination signature (null: no artifact, too large, or no dataset). */
  artifact: ArtifactLines | null;
  /** Usage of earlier attempts that a restart superseded (their trajectories live in attempts/N/). */
  superseded: Usage;
  /** The report was asked to count suspicious verdicts as they are (`--trust-suspicious`). */
  trustSuspicious?: boolean;
}

export interface RunInput {
  runDir: string;
  config: RunConfigRead;
  label: string;
  sessionsPath: string;
  sessions: SessionsFile;
  /** The sessions file and dataset the run ran (run.json's digests, else those of the files read; null: unknown). */
  digests: { sessions: string; dataset: string | null };
  datasetPath: string | null;
  /** Per focus task; null when the dataset could not be read (stage attribution unavailable). */
  tasks: Map<string, TaskTests> | null;
  datasetNote: string | null;
  sessionData: Map<string, SessionInput>;
  warnings: string[];
}

export interface ReadRunOptions {
  /** Overrides run.json's sessions_file.path. */
  sessionsPath?: string;
  /** Overrides run.json's dataset.path. */
  datasetPath?: string;
  /** Trajectories read at the same time. */
  concurrency?: number;
  /** Count resolved verdicts marked suspicious as resolved (default: they are counted apart, unresolved). */
  trustSuspicious?: boolean;
}

function taskTestsFrom(dir: string): { tasks: Map<string, TaskTests> | null; note: string | null } {
  const { dataset, problems } = loadDatasetCollecting(dir);
  if (!dataset) {
    const first = problems[0];
    return { tasks: null, note: `dataset ${dir} not readable${first ? ` (${first.path ? `${first.path}: ` : ""}${first.message})` : ""}` };
  }
  const tasks = new Map<string, TaskTests>();
  for (const t of dataset.tasks) {
    const f2pStage = new Map<string, number>();
    t.requests.forEach((r, k) => {
      for (const id of r.tests ?? []) if (!f2pStage.has(id)) f2pStage.set(id, k + 1);
    });
    tasks.set(t.id, {
      stages: t.requests.length,
      lastTestedStage: Math.max(0, ...f2pStage.values()),
      f2pStage,
      f2p: new Set(t.verifier.fail_to_pass),
      p2p: new Set(t.verifier.pass_to_pass),
      material: taskMaterial(
        [...t.stagePatches, t.testsPatch],
        t.requests.map((r) => r.text),
      ),
    });
  }
  return { tasks, note: null };
}

function readArtifact(file: string): ArtifactLines | null {
  if (!existsSync(file) || statSync(file).size > maxArtifactBytes) return null;
  return artifactLines(readFileSync(file, "utf8"));
}

async function readSession(runDir: string, id: string, trustSuspicious: boolean, withArtifact: boolean): Promise<SessionInput> {
  const trajFile = runFiles.trajectory(runDir, id);
  const trajectory = existsSync(trajFile) ? await readTrajectorySummary(trajFile) : null;
  let summary: SessionSummaryRead | null = null;
  const summaryFile = runFiles.summary(runDir, id);
  if (existsSync(summaryFile)) {
    try {
      const parsed = sessionSummaryReadSchema.safeParse(readJson(summaryFile));
      if (parsed.success) summary = parsed.data;
    } catch {
      summary = null; // being written, or broken: optional input
    }
  }
  let verdict: Verdict | null = null;
  let verdictProblem: string | null = null;
  const verdictFile = runFiles.verdict(runDir, id);
  if (existsSync(verdictFile)) {
    try {
      verdict = readJsonWith(verdictFile, verdictSchema);
      const key = readVerdictKey(runDir);
      if (key && !sealMatches(verdict, key)) {
        verdict = null;
        verdictProblem = "seal: does not match the run's key (written or edited outside the verifier)";
      }
    } catch (e) {
      verdictProblem = e instanceof InputError ? (e.problems[0]?.message ?? e.message) : String(e);
    }
  }
  const superseded = emptyUsage();
  const attemptsDir = join(runFiles.sessionDir(runDir, id), "attempts");
  if (existsSync(attemptsDir)) {
    for (const n of readdirSync(attemptsDir)) {
      const old = join(attemptsDir, n, "trajectory.jsonl");
      if (existsSync(old)) addUsage(superseded, (await readTrajectorySummary(old)).usage);
    }
  }
  const artifactFile = runFiles.artifact(runDir, id);
  const artifact = withArtifact ? readArtifact(artifactFile) : null;
  return {
    id,
    trajectory,
    summary,
    verdict,
    verdictProblem,
    hasArtifact: existsSync(artifactFile),
    artifact,
    superseded,
    ...(trustSuspicious ? { trustSuspicious } : {}),
  };
}

/** Reads one run directory: run.json, its sessions file, the dataset's test-to-stage map and every session. */
export async function readRun(runDirArg: string, opts: ReadRunOptions = {}): Promise<RunInput> {
  const runDir = resolve(runDirArg);
  assertRunDir(runDir);
  const configFile = runFiles.config(runDir);
  const parsedConfig = runConfigReadSchema.safeParse(readJson(configFile));
  if (!parsedConfig.success) throw new InputError(zodProblems(configFile, parsedConfig.error));
  const config = parsedConfig.data;
  const warnings: string[] = [];
  if (config.format !== undefined && !config.format.startsWith("switch-swe.run/")) {
    warnings.push(`${configFile}: format "${config.format}" is not a switch-swe run`);
  }
  // A reader of the verdicts must know they rest on no confinement (the demo without bubblewrap).
  if (config.sandbox?.mode === "none")
    warnings.push(`unconfined run (run.json sandbox.mode "none"): ${config.sandbox.not_enforced.join("; ")}`);

  let sessionsPath: string;
  if (opts.sessionsPath) sessionsPath = resolve(opts.sessionsPath);
  else if (config.sessions_file) sessionsPath = recordedPath(runDir, config.sessions_file.path);
  else throw inputError(configFile, "sessions_file", "missing (or name the sessions file with --sessions)");
  const sessions = readJsonWith(sessionsPath, sessionsFileSchema);
  const recordedSha = config.sessions_file?.sha256;
  const readSha = sha256(readFileSync(sessionsPath));
  if (recordedSha && readSha !== recordedSha) {
    warnings.push(`${sessionsPath}: sha256 differs from the one recorded in run.json (the sessions file changed after the run)`);
  }

  const datasetRef = opts.datasetPath ?? config.dataset?.path;
  let datasetPath: string | null = null;
  let tasks: Map<string, TaskTests> | null = null;
  let datasetNote: string | null = null;
  if (datasetRef === undefined) {
    datasetNote = "run.json names no dataset path";
  } else {
    datasetPath = opts.datasetPath ? resolve(opts.datasetPath) : recordedPath(runDir, datasetRef);
    ({ tasks, note: datasetNote } = taskTestsFrom(datasetPath));
  }
  // What the run ran: run.json's digests; a run that predates them is taken to have run the files read now.
  const datasetSha = config.dataset?.sha256 ?? (datasetPath !== null && tasks !== null ? datasetDigest(datasetPath) : null);

  const ids = sessions.pairs.flatMap((p) => [sessionId(p.id, "base"), sessionId(p.id, "switch")]);
  const known = new Set(ids);
  const sessionsDir = join(runDir, "sessions");
  if (existsSync(sessionsDir)) {
    const extra = readdirSync(sessionsDir).filter((d) => !known.has(d));
    if (extra.length > 0) {
      warnings.push(
        `${extra.length} session director${extra.length === 1 ? "y is" : "ies are"} not in the sessions file and ignored: ${extra.slice(0, 5).join(", ")}${extra.length > 5 ? ", ..." : ""}`,
      );
    }
  }
  const read = await mapPool(ids, opts.concurrency ?? 8, (id) => readSession(runDir, id, opts.trustSuspicious === true, tasks !== null));
  const sessionData = new Map(read.map((s) => [s.id, s]));
  for (const s of read) {
    if (s.trajectory && s.trajectory.invalid_lines > 0) {
      warnings.push(`${runFiles.trajectory(runDir, s.id)}: ${s.trajectory.invalid_lines} line(s) skipped (${s.trajectory.first_invalid})`);
    }
    if (s.verdictProblem) warnings.push(`${runFiles.verdict(runDir, s.id)}: not accepted, counted as no verdict: ${s.verdictProblem}`);
  }

  return {
    runDir,
    config,
    label: config.label ?? defaultLabel(config.agent),
    sessionsPath,
    sessions,
    digests: { sessions: recordedSha ?? readSha, dataset: datasetSha },
    datasetPath,
    tasks,
    datasetNote,
    sessionData,
    warnings,
  };
}
