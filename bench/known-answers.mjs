// The known-answer table of the context-bound model (src/mock-model/context-bound.ts) for the tasks of
// some session pairs: per stage, its key (the opening of its first sentence, as RCM's record quotes it),
// its text, and its files as written with each set of earlier stages known (the stage patches applied in
// order, the unknown ones left out; hunks that need a left-out stage are rejected, as a model that never
// saw that stage's request would not write them).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { touchedPaths } from "../dist/dataset/patch-files.js";
import { requestBody, sentences } from "../dist/rcm/state-updater.js";

/** The opening of a request's first sentence (whitespace as RCM's record writes it). */
export function stageKey(text) {
  const first = sentences(requestBody(text))[0] ?? text;
  const key = first.replace(/\s+/g, " ").trim().slice(0, 50);
  if (!text.includes(key)) throw new Error(`stage key not found verbatim in its request: ${key}`);
  return key;
}

function subsets(n) {
  const out = [];
  for (let m = 0; m < 1 << n; m++) out.push(Array.from({ length: n }, (_, i) => i + 1).filter((s) => m & (1 << (s - 1))));
  return out;
}

function filesWith(dataset, task, stages, touched) {
  const repo = dataset.manifest.repos[task.repo];
  const work = mkdtempSync(join(tmpdir(), "switch-swe-known-"));
  try {
    cpSync(join(dataset.root, repo.path), work, { recursive: true });
    for (const s of stages) {
      try {
        execFileSync("git", ["apply", "--reject", "--whitespace=nowarn", "-"], {
          cwd: work,
          input: task.stagePatches[s - 1],
          stdio: ["pipe", "ignore", "ignore"],
        });
      } catch {
        // Hunks that need a stage left out are rejected (left as .rej); the rest is applied.
      }
    }
    return Object.fromEntries(touched.map((p) => [p, existsSync(join(work, p)) ? readFileSync(join(work, p), "utf8") : ""]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The table for the given tasks; `shell` is the CLI's shell tool ({name, command, extra}). */
export function knownAnswers(dataset, taskIds, { window, shell }) {
  const stages = [];
  for (const id of taskIds) {
    const task = dataset.tasks.find((t) => t.id === id);
    task.requests.forEach((r, i) => {
      const stage = i + 1;
      const touched = touchedPaths(task.stagePatches[i]);
      const writes = subsets(stage - 1).map((known) => ({ known, files: filesWith(dataset, task, [...known, stage], touched) }));
      stages.push({ task: id, stage, key: stageKey(r.text), text: r.text, writes });
    });
  }
  const keys = new Set(stages.map((s) => s.key));
  if (keys.size !== stages.length) throw new Error("two stages share a key");
  return { format: "switch-swe.known-answers/1", window, shell, stages };
}
