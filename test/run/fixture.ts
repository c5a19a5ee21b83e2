import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadDataset, type Dataset } from "../../src/dataset/load.js";
import { buildSessions } from "../../src/sessions/build.js";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

export interface RunFixture {
  root: string;
  datasetDir: string;
  dataset: Dataset;
  sessionsPath: string;
  sessions: SessionsFile;
  /** SWITCH_SWE_CACHE for this fixture (also set in process.env). */
  cache: string;
}

/**
 * A real dataset (a local Python-like repository, ten tasks with stage patches from `git diff`) and a
 * sessions file with `pairs` pairs built from it, in a fresh temporary directory.
 */
export function makeRunFixture(pairs = 2, seed = 0): RunFixture {
  const root = tempDir("switch-swe-run-");
  const cache = join(root, "cache");
  mkdirSync(cache, { recursive: true });
  process.env.SWITCH_SWE_CACHE = cache;
  const datasetDir = writeSyntheticDataset(join(root, "dataset"), layoutTen.files, layoutTen.tasks);
  const dataset = loadDataset(datasetDir);
  const built = buildSessions(dataset, { seed });
  // Prefer pairs whose focus has several stages, so switched sessions have focus returns.
  const chosen = [...built.pairs]
    .sort((a, b) => b.schedules.base.length - a.schedules.base.length || (a.id < b.id ? -1 : 1))
    .slice(0, pairs);
  const sessions: SessionsFile = { ...built, pairs: chosen.sort((a, b) => (a.id < b.id ? -1 : 1)) };
  const sessionsPath = join(root, "sessions.json");
  writeFileSync(sessionsPath, `${JSON.stringify(sessions, null, 2)}\n`);
  return { root, datasetDir, dataset, sessionsPath, sessions, cache };
}

/** Writes an executable shell script and returns its path. */
export function writeScript(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** True while a process exists and is not a zombie (a container's init may not reap orphans). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}
