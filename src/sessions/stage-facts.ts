import { existsSync, statSync } from "node:fs";
import { readJsonWith } from "../core/json-file.js";
import { AUTHORED } from "../dataset/schema.js";
import { loadDataset } from "../dataset/load.js";
import { taskManifestReadSchema } from "../manifests/task-manifest.js";
import { inputError } from "../core/errors.js";
import type { StageFacts } from "./tested-stages.js";

/** Per task id, which stages are tested and authored, from dataset directories or manifests. */
export function stageFactsOf(paths: readonly string[]): Map<string, StageFacts> {
  const out = new Map<string, StageFacts>();
  for (const path of paths) {
    if (!existsSync(path)) throw inputError(path, "", "not found (a dataset directory or a manifest.json)");
    if (statSync(path).isDirectory()) {
      for (const t of loadDataset(path).tasks) {
        const single = t.requests.length === 1;
        out.set(t.id, {
          tested: t.requests.map((r) => (single ? t.verifier.fail_to_pass.length > 0 : (r.tests?.length ?? 0) > 0)),
          authored: t.requests.map((r) => r.provenance === AUTHORED),
        });
      }
    } else {
      for (const t of readJsonWith(path, taskManifestReadSchema).tasks) {
        const single = t.stages.length === 1;
        out.set(t.id, {
          tested: t.stages.map((s) => (single ? t.verifier.fail_to_pass.length > 0 : s.tests.length > 0)),
          authored: t.stages.map((s) => s.provenance === AUTHORED),
        });
      }
    }
  }
  return out;
}
