import { assertRunDir } from "../formats/run-dir-check.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join, relative, resolve } from "node:path";
import { replacePaths } from "../core/scrub-paths.js";
import { exportedVerdict } from "./atif-verdict.js";
import { z } from "zod";
import { InputError, inputError, formatFieldPath, zodProblems } from "../core/errors.js";
import { readJson, readTextFile, writeFileAtomic } from "../core/json-file.js";
import { atifTrajectorySchema, ATIF_SCHEMA_VERSION } from "../formats/atif.js";
import { runConfigReadSchema } from "../formats/run-config.js";
import { agentIdentity } from "../agents/identity.js";
import { runFiles } from "../formats/run-layout.js";
import { trajectoryLineSchema, type TrajectoryLine } from "../formats/trajectory.js";
import { sessionDocument, type AgentFacts } from "./atif-document.js";

/**
 * run.json as the export reads it: the widened reader of every run directory, plus what the ATIF `agent`
 * block needs (the harness a real CLI agent recorded, switch-swe's version for its built-in agents).
 */
const exportRunSchema = runConfigReadSchema.extend({
  switch_swe_version: z.string().optional(),
  created_at: z.string().optional(),
  agent: z.looseObject({
    name: z.string(),
    options: z.unknown().optional(),
    harness: z
      .looseObject({
        name: z.string().optional(),
        package: z.string().optional(),
        version: z.string().nullable().optional(),
        model: z.string().nullable().optional(),
        effort: z.string().nullable().optional(),
      })
      .optional(),
  }),
});

export interface ExportResult {
  /** Files written, in session order. */
  files: string[];
  /** Session directories without a trajectory (never started): nothing to export. */
  skipped: string[];
}

/**
 * Reads a trajectory for export: every line must parse (a last line cut short by a crash is dropped, as
 * every reader does); the first bad line is bad input, `file: line N: field: what is wrong`.
 */
function readLines(file: string): TrajectoryLine[] {
  const text = readTextFile(file);
  const raw = text.split("\n");
  const out: TrajectoryLine[] = [];
  for (let i = 0; i < raw.length; i++) {
    const lineText = raw[i]!;
    if (lineText.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch (e) {
      const last = raw.slice(i + 1).every((l) => l.trim() === "");
      if (last && !text.endsWith("\n")) break;
      throw inputError(file, `line ${i + 1}`, `not valid JSON (${(e as Error).message})`);
    }
    const parsed = trajectoryLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = formatFieldPath(issue.path);
      throw inputError(file, field ? `line ${i + 1}: ${field}` : `line ${i + 1}`, issue.message);
    }
    out.push(parsed.data);
  }
  return out;
}

function agentFacts(config: z.infer<typeof exportRunSchema>): AgentFacts {
  const h = config.agent.harness;
  // Said as the report's configurations table says it (src/agents/identity.ts).
  const id = agentIdentity(config);
  const version = id.version ?? "unknown";
  const extra: Record<string, unknown> = { options: config.agent.options ?? {} };
  if (config.label !== undefined) extra.label = config.label;
  if (h) extra.harness = h;
  if (config.switch_swe_version !== undefined) extra.switch_swe_version = config.switch_swe_version;
  return { name: config.agent.name, version, model: id.model, extra };
}

/** `switch-swe export atif RUN_DIR --out DIR`: one ATIF document per session, `DIR/<session>.json`, each validated before it is written. */
export function exportAtif(runDirArg: string, outDirArg: string): ExportResult {
  const runDir = resolve(runDirArg);
  const outDir = resolve(outDirArg);
  assertRunDir(runDir, { sessions: true });
  const configFile = runFiles.config(runDir);
  const parsed = exportRunSchema.safeParse(readJson(configFile));
  if (!parsed.success) throw new InputError(zodProblems(configFile, parsed.error));
  const config = parsed.data;
  const sessionsDir = join(runDir, "sessions");

  const agent = agentFacts(config);
  // A run's id: its directory's name and the digest of its run.json (which records when it was created),
  // so documents of two runs of the same sessions never share a trajectory_id.
  const id = `${basename(runDir)}-${createHash("sha256").update(readFileSync(configFile)).digest("hex").slice(0, 12)}`;
  const run: Record<string, unknown> = {
    id,
    dir: basename(runDir),
    ...(config.label !== undefined ? { label: config.label } : {}),
    ...(config.created_at !== undefined ? { created_at: config.created_at } : {}),
    ...(config.dataset ? { dataset: { name: config.dataset.name ?? null, version: config.dataset.version ?? null } } : {}),
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
  };

  const sessions = readdirSync(sessionsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const withTrajectory = sessions.filter((s) => existsSync(runFiles.trajectory(runDir, s)));
  // Every trajectory is checked before anything is written (bad input writes nothing); they are read
  // again one at a time to write, so a large run is never held in memory whole.
  for (const session of withTrajectory) readLines(runFiles.trajectory(runDir, session));
  const files: string[] = [];
  for (const session of withTrajectory) {
    const trajectoryFile = runFiles.trajectory(runDir, session);
    const exported = sessionDocument(agent, run, {
      session,
      source: relative(runDir, trajectoryFile),
      lines: readLines(trajectoryFile),
      verdict: exportedVerdict(runDir, session),
    });
    // Workspace paths of an unconfined run lie under the run directory: named from it, never absolute.
    const doc = replacePaths(exported, new Map([[runDir, basename(runDir)]]));
    const checked = atifTrajectorySchema.safeParse(doc);
    if (!checked.success) {
      // Our own output failed the published schema: a bug here, not bad input.
      const problems = checked.error.issues.slice(0, 5).map((i) => `${formatFieldPath(i.path)}: ${i.message}`);
      throw new Error(`ATIF export of ${session} does not validate against ${ATIF_SCHEMA_VERSION}: ${problems.join("; ")}`);
    }
    const file = join(outDir, `${session}.json`);
    writeFileAtomic(file, `${JSON.stringify(checked.data, null, 2)}\n`);
    files.push(file);
  }
  return { files, skipped: sessions.filter((s) => !withTrajectory.includes(s)) };
}
