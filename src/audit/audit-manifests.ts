import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError, type Problem } from "../core/errors.js";
import { readJsonWith } from "../core/json-file.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { auditKinds, type AuditFinding, type AuditReport, type AuditTask } from "../formats/audit.js";
import { datasetOfManifest } from "../manifests/materialize.js";
import { taskManifestReadSchema, type TaskManifest } from "../manifests/task-manifest.js";
import { staticAudit } from "./static-audit.js";
import { testedAudit } from "./tested-audit.js";

export interface AuditOptions {
  manifests: string[];
  /** Repository name → a local clone, mirror, bundle or URL: its patches are read (and its tests run with `runTests`). */
  sources?: Record<string, string>;
  runTests?: boolean;
  /** Each task's audit as soon as it is done. */
  onTask?: (t: AuditTask) => void;
}

function readManifests(files: readonly string[], sources: Record<string, string>): Array<{ file: string; manifest: TaskManifest }> {
  const read = files.map((file) => ({ file, manifest: readJsonWith(file, taskManifestReadSchema) }));
  const known = new Set(read.flatMap((r) => Object.keys(r.manifest.repos)));
  const problems: Problem[] = Object.keys(sources)
    .filter((name) => !known.has(name))
    .map((name) => ({ file: "--repo", path: name, message: `no repository ${name} in the manifests (${[...known].join(", ")})` }));
  if (problems.length > 0) throw new InputError(problems);
  return read;
}

/** Tasks, stages and findings by kind over every task audited. */
function summaryOf(tasks: readonly AuditTask[]): AuditReport["summary"] {
  const all: AuditFinding[] = tasks.flatMap((t) => t.findings);
  const by_kind: AuditReport["summary"]["by_kind"] = {};
  for (const k of auditKinds) {
    const n = all.filter((f) => f.kind === k).length;
    if (n > 0) by_kind[k] = n;
  }
  return {
    tasks: tasks.length,
    stages: tasks.reduce((n, t) => n + t.stages, 0),
    errors: all.filter((f) => f.severity === "error").length,
    warnings: all.filter((f) => f.severity === "warning").length,
    by_kind,
  };
}

/**
 * `datasets audit`: every check on every task of the manifests. Static checks always; the patch checks
 * for the repositories named in `sources`; with `runTests`, the checks that run the tests too (on those
 * repositories, materialized in a scratch directory that is removed afterwards).
 */
export async function auditManifests(opts: AuditOptions): Promise<AuditReport> {
  const sources = opts.sources ?? {};
  const read = readManifests(opts.manifests, sources);
  const scratch = mkdtempSync(join(tmpdir(), "switch-swe-audit-"));
  const tasks: AuditTask[] = [];
  try {
    for (const { file, manifest } of read) {
      const mine = Object.fromEntries(Object.entries(sources).filter(([name]) => name in manifest.repos));
      const dataset = datasetOfManifest(manifest, join(scratch, "repos"), mine);
      const gitDirs = new Map<string, string>();
      for (const name of Object.keys(mine)) gitDirs.set(name, (await materializeRepo(dataset, name)).gitDir);
      const tested =
        opts.runTests && gitDirs.size > 0
          ? await testedAudit(manifest, mine, join(scratch, `run-${tasks.length}`))
          : new Map<string, AuditFinding[]>();
      for (const t of manifest.tasks) {
        const findings = await staticAudit(t, manifest.repos[t.repo]!, gitDirs.get(t.repo) ?? null);
        findings.push(...(tested.get(t.id) ?? []));
        findings.sort((a, b) => (a.stage ?? 0) - (b.stage ?? 0));
        const entry: AuditTask = { id: t.id, repo: t.repo, manifest: file, stages: t.stages.length, findings };
        tasks.push(entry);
        opts.onTask?.(entry);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  }
  return {
    format: "switch-swe.audit/1",
    manifests: [...opts.manifests],
    run_tests: opts.runTests === true,
    repos_read: Object.keys(sources).sort(),
    summary: summaryOf(tasks),
    tasks,
  };
}
