import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { z } from "zod";
import { InputError, type Problem } from "../core/errors.js";
import { readJson, readJsonWith, toJsonText, writeJsonAtomic } from "../core/json-file.js";
import { datasetManifestSchema, type DatasetManifest, type Environment, type RepoSpec, type TaskSpec } from "../dataset/schema.js";
import { isRemoteSource } from "../dataset/source-location.js";
import { defaultTestRunner, testRunners } from "../testbed/test-runners.js";
import {
  followUpSchema,
  followUpsFileSchema,
  parseInstance,
  readInstanceRecords,
  type FollowUp,
  type SwebenchInstance,
} from "./swebench-instance.js";

export interface ImportOptions {
  instancesFile: string;
  outDir: string;
  /** `{instance_id: [{text, patch, tests?, test_patch?}, ...]}`: later stages per instance. */
  requestsFile?: string;
  /** `{"owner/name": "test command" | {test_command?, setup?, git?, mirror?, versions?}}`. */
  testCommandMapFile?: string;
  /** `owner/name` → a local clone, mirror or bundle (a path), or another URL to clone from (`--repo`). */
  repoSources?: Record<string, string>;
}

export interface ImportResult {
  datasetDir: string;
  imported: string[];
  /** One line per refused instance (or bad follow-up entry). */
  refused: Problem[];
}

const envFields = { test_command: z.string().min(1).optional(), setup: z.array(z.string().min(1)).optional() };
const envEntry = z.union([
  z.string().min(1),
  z
    .object({
      ...envFields,
      /** The URL to clone (default https://github.com/OWNER/NAME.git). */
      git: z.string().min(1).optional(),
      /** A local clone, mirror or bundle to clone from instead (a path, relative to the map file, or a URL). */
      mirror: z.string().min(1).optional(),
      /** Environments per SWE-bench `version` or per `environment_setup_commit`. */
      versions: z.record(z.string().min(1), z.object(envFields).strict()).optional(),
    })
    .strict(),
]);
const commandMapSchema = z.record(z.string(), envEntry);
type MapEntry = z.infer<typeof envEntry>;

/** SWE-bench repository `owner/name` → dataset repository name `owner__name`. */
export function repoNameOf(repo: string): string {
  return repo.replace("/", "__");
}

/** A source given on the command line or in the map: a path (stored relative to the dataset) or a URL. */
function sourceFor(source: string, from: string, outDir: string): string {
  if (isRemoteSource(source)) return source;
  const rel = relative(outDir, resolve(from, source));
  return rel === "" ? "." : rel;
}

/**
 * The runner a test command starts, when it is not the default: the first registered runner that
 * recognises it (`python tests/runtests.py ...`, Django's, is unittest's). Nothing for the default.
 */
function runnerOfCommand(command: string): { test_runner: string } | Record<string, never> {
  const r = testRunners().find((x) => x.harden(command) !== null);
  return r === undefined || r === defaultTestRunner() ? {} : { test_runner: r.name };
}

/**
 * The dataset.json entry of a SWE-bench repository: the URL that identifies it, where to clone it
 * from (a `--repo` source wins over the map's `mirror`), its test command, set-up and versions.
 */
export function repoEntry(
  repo: string,
  entry: MapEntry | undefined,
  cliSource: string | undefined,
  outDir: string,
  mapDir: string,
): RepoSpec {
  const e = typeof entry === "string" ? { test_command: entry } : (entry ?? {});
  const testCommand = e.test_command ?? defaultTestRunner().defaultCommand;
  const environment: Environment = { test_command: testCommand, ...runnerOfCommand(testCommand), ...(e.setup ? { setup: e.setup } : {}) };
  if ("versions" in e && e.versions) {
    environment.variants = Object.fromEntries(
      Object.entries(e.versions).map(([key, v]) => [
        key,
        {
          ...v,
          ...(v.test_command !== undefined ? runnerOfCommand(v.test_command) : {}),
          ...(/^[0-9a-f]{40}$/.test(key) ? { setup_commit: key } : {}),
        },
      ]),
    );
  }
  const mirror =
    cliSource !== undefined
      ? sourceFor(cliSource, process.cwd(), outDir)
      : "mirror" in e && e.mirror
        ? sourceFor(e.mirror, mapDir, outDir)
        : undefined;
  return { git: ("git" in e && e.git) || `https://github.com/${repo}.git`, ...(mirror !== undefined ? { mirror } : {}), environment };
}

/** The environment variant an instance needs (by `version`, else by `environment_setup_commit`), when the repository has variants. */
function variantOf(inst: SwebenchInstance, spec: RepoSpec): string | undefined | { problem: string } {
  const variants = spec.environment?.variants;
  if (!variants) return undefined;
  for (const key of [inst.version, inst.environment_setup_commit]) if (key !== undefined && key in variants) return key;
  return {
    problem: `no environment for version ${inst.version ?? "(none)"} or set-up commit ${inst.environment_setup_commit ?? "(none)"} among the map's versions (${Object.keys(variants).join(", ")})`,
  };
}

/** Concatenated diffs: each ends with a newline, so the next file header starts a line. */
function concatPatches(parts: readonly string[]): string {
  return parts.map((p) => (p.endsWith("\n") ? p : `${p}\n`)).join("");
}

/** The task a SWE-bench instance becomes (and its files), with optional follow-up stages. */
export function taskFromInstance(
  inst: SwebenchInstance,
  followUps: readonly FollowUp[],
): { spec: TaskSpec; stages: string[]; testsPatch: string } {
  const staged = followUps.length > 0;
  const requests: TaskSpec["requests"] = [
    {
      text: inst.problem_statement,
      provenance: `SWE-bench ${inst.instance_id} problem_statement`,
      ...(staged ? { tests: [...inst.FAIL_TO_PASS] } : {}),
    },
    ...followUps.map((f, k) => ({
      text: f.text,
      provenance: f.provenance ?? `follow-up ${k + 1} of ${inst.instance_id}`,
      ...(f.tests && f.tests.length > 0 ? { tests: [...f.tests] } : {}),
    })),
  ];
  const f2p = [...new Set([...inst.FAIL_TO_PASS, ...followUps.flatMap((f) => f.tests ?? [])])];
  const spec: TaskSpec = {
    id: inst.instance_id,
    repo: repoNameOf(inst.repo),
    base: inst.base_commit,
    requests,
    verifier: { fail_to_pass: f2p, pass_to_pass: inst.PASS_TO_PASS.filter((t) => !f2p.includes(t)), timeout_s: 1800 },
  };
  return {
    spec,
    stages: [inst.patch, ...followUps.map((f) => f.patch)],
    testsPatch: concatPatches([inst.test_patch, ...followUps.flatMap((f) => (f.test_patch ? [f.test_patch] : []))]),
  };
}

/** Writes a task directory whole or not at all (built beside it, then renamed). */
function writeTaskDir(dir: string, t: ReturnType<typeof taskFromInstance>): void {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "task.json"), toJsonText(t.spec));
  t.stages.forEach((text, k) => writeFileSync(join(tmp, `stage-${k + 1}.patch`), text));
  writeFileSync(join(tmp, "tests.patch"), t.testsPatch);
  renameSync(tmp, dir);
}

/** The follow-ups file; ids with a malformed entry are in `bad` (each problem added to `refused`). */
function readFollowUps(file: string, refused: Problem[]): { followUps: Record<string, unknown[]>; bad: Set<string> } {
  const bad = new Set<string>();
  const raw = readJson(file);
  const parsed = followUpsFileSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [id, k, ...rest] = issue.path;
      if (typeof id === "string") bad.add(id);
      const where = typeof id === "string" ? `${id}${typeof k === "number" ? `[${k}]` : ""}${rest.length ? `.${rest.join(".")}` : ""}` : "";
      refused.push({ file, path: where, message: issue.message });
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new InputError(refused);
  }
  return { followUps: raw as Record<string, unknown[]>, bad };
}

/**
 * Turns SWE-bench-format instances into tasks of a dataset directory (created or extended): the
 * problem statement is stage 1 and the instance's `patch` its reference; follow-ups, when given,
 * add later stages, each with its own reference diff. Every malformed instance is refused with one
 * line; the others are imported.
 */
export function importSwebench(opts: ImportOptions): ImportResult {
  const outDir = resolve(opts.outDir);
  const { records, problems: recordProblems } = readInstanceRecords(opts.instancesFile);
  const refused: Problem[] = [...recordProblems];
  if (records.length === 0 && refused.length === 0) throw new InputError({ file: opts.instancesFile, path: "", message: "no instances" });

  const map = opts.testCommandMapFile ? readJsonWith(opts.testCommandMapFile, commandMapSchema) : {};
  const mapDir = opts.testCommandMapFile ? dirname(resolve(opts.testCommandMapFile)) : process.cwd();
  for (const repo of Object.keys(opts.repoSources ?? {})) {
    if (!records.some((r) => (r.value as { repo?: unknown } | null)?.repo === repo)) {
      refused.push({ file: "--repo", path: repo, message: "no instance of this repository in the instances file" });
    }
  }
  const { followUps, bad: badFollowUps } = opts.requestsFile
    ? readFollowUps(opts.requestsFile, refused)
    : { followUps: {}, bad: new Set<string>() };

  const manifestFile = join(outDir, "dataset.json");
  let manifest: DatasetManifest = existsSync(manifestFile)
    ? readJsonWith(manifestFile, datasetManifestSchema)
    : { name: basename(outDir), version: "1", repos: {} };
  const imported: string[] = [];
  const seen = new Set<string>();
  for (const { index, value } of records) {
    const { instance, problems } = parseInstance(opts.instancesFile, index, value);
    if (!instance) {
      refused.push(...problems);
      continue;
    }
    const id = instance.instance_id;
    const at = (field: string, message: string) => refused.push({ file: opts.instancesFile, path: `[${index}].${field}`, message });
    if (seen.has(id)) {
      at("instance_id", `${id} appears twice; the first one was imported`);
      continue;
    }
    seen.add(id);
    if (badFollowUps.has(id)) {
      at("instance_id", `${id} has malformed follow-ups in ${opts.requestsFile} (see above); not imported`);
      continue;
    }
    const taskDir = join(outDir, "tasks", id);
    if (existsSync(taskDir)) {
      at("instance_id", `task ${id} already exists in ${outDir}; remove it to import it again`);
      continue;
    }
    const fu = (followUps[id] ?? []).map((f) => followUpSchema.parse(f));
    const repoName = repoNameOf(instance.repo);
    if (!manifest.repos[repoName]) {
      const entry = repoEntry(instance.repo, map[instance.repo], opts.repoSources?.[instance.repo], outDir, mapDir);
      manifest = { ...manifest, repos: { ...manifest.repos, [repoName]: entry } };
    }
    const variant = variantOf(instance, manifest.repos[repoName]!);
    if (typeof variant === "object") {
      at("version", variant.problem);
      continue;
    }
    mkdirSync(join(outDir, "tasks"), { recursive: true });
    const task = taskFromInstance(instance, fu);
    if (variant !== undefined) task.spec = { ...task.spec, environment: variant };
    writeTaskDir(taskDir, task);
    imported.push(id);
  }
  if (opts.requestsFile) {
    for (const id of Object.keys(followUps)) {
      if (!seen.has(id)) refused.push({ file: opts.requestsFile, path: id, message: "no instance with this id in the instances file" });
    }
  }
  if (imported.length === 0)
    throw new InputError(refused.length > 0 ? refused : [{ file: opts.instancesFile, path: "", message: "no instance imported" }]);
  writeJsonAtomic(manifestFile, manifest);
  return { datasetDir: outDir, imported, refused };
}
