import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dataset, LoadedTask } from "../../../src/dataset/load.js";
import { touchedPaths } from "../../../src/dataset/patch-files.js";
import type { ScriptInput, ScriptToolCall } from "../../../src/mock-model/script.js";
import { finalizationText, submissionFile } from "../../../src/run/message-templates.js";
import type { Condition, SessionPair } from "../../../src/formats/sessions.js";

/** A substring that identifies a request: its end (the start may be quoted in a state record's goal). */
export function requestKey(text: string): string {
  return text.slice(-80);
}

/** Contents of the files each stage touches, after applying stages 1..k to the repository. */
function stageFiles(dataset: Dataset, task: LoadedTask): Map<string, string>[] {
  const repo = dataset.manifest.repos[task.repo] as { path: string };
  const work = mkdtempSync(join(tmpdir(), "switch-swe-script-"));
  try {
    cpSync(join(dataset.root, repo.path), work, { recursive: true });
    return task.stagePatches.map((patch) => {
      execFileSync("git", ["apply", "--whitespace=nowarn", "-"], { cwd: work, input: patch });
      return new Map(touchedPaths(patch).map((p) => [p, readFileSync(join(work, p), "utf8")]));
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The task's final patch as an agent submits it under `run --submission agent`: every stage applied to the
 * base, diffed with git (a git directory of its own, so the repository's own .git is never read).
 */
function finalPatch(dataset: Dataset, task: LoadedTask): string {
  const repo = dataset.manifest.repos[task.repo] as { path: string };
  const tmp = mkdtempSync(join(tmpdir(), "switch-swe-final-"));
  const work = join(tmp, "work");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null", ...args], {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, GIT_DIR: join(tmp, "git"), GIT_WORK_TREE: work, GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  try {
    cpSync(join(dataset.root, repo.path), work, { recursive: true });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
    for (const patch of task.stagePatches) execFileSync("git", ["apply", "--whitespace=nowarn", "-"], { cwd: work, input: patch });
    git("add", "-A");
    return git("diff", "--cached", "HEAD");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A mock-model script that plays a competent agent for the given conditions of a pair: each stage
 * request is answered by `write` calls that leave the touched files as the reference stages do, then
 * a short text; finalization by writing the task's final patch to the submission file (what the
 * finalization request asks under `run --submission agent`, the default for real agents), then text. Turns are matched to requests by the end of the
 * request text, so base and switch sessions (run one after the other) each find theirs.
 */
export function scriptForPair(
  dataset: Dataset,
  pair: SessionPair,
  conditions: readonly Condition[],
  /** The tool call that writes one file (default: OpenCode's `write`); `{{workspace}}` is filled in. */
  writeCall: (path: string, content: string) => ScriptToolCall = (path, content) => ({
    name: "write",
    arguments: { filePath: `{{workspace}}/${path}`, content },
  }),
  /** The tool call that writes the submission file (default: writeCall). */
  submitCall: (path: string, content: string) => ScriptToolCall = writeCall,
): ScriptInput {
  const files = new Map<string, Map<string, string>[]>();
  const filesOf = (id: string) => {
    let f = files.get(id);
    if (!f) {
      const task = dataset.tasks.find((t) => t.id === id)!;
      files.set(id, (f = stageFiles(dataset, task)));
    }
    return f;
  };
  const patches = new Map<string, string>();
  const finalPatchOf = (id: string) => {
    if (!patches.has(id))
      patches.set(
        id,
        finalPatch(
          dataset,
          dataset.tasks.find((t) => t.id === id)!,
        ),
      );
    return patches.get(id)!;
  };
  const turns: ScriptInput = [];
  for (const condition of conditions) {
    for (const step of pair.schedules[condition]) {
      if (step.kind === "finalization") {
        turns.push({ match: finalizationText, tool_calls: [submitCall(submissionFile, finalPatchOf(pair.focus))] });
        turns.push({ match: finalizationText, text: "The task is complete and ready for evaluation." });
        continue;
      }
      const stage = filesOf(step.task)[step.stage - 1]!;
      const key = requestKey(step.text);
      turns.push({
        match: key,
        tool_calls: [...stage].map(([path, content]) => writeCall(path, content)),
      });
      turns.push({ match: key, text: `I updated ${[...stage.keys()].join(", ")}.` });
    }
  }
  return turns;
}
