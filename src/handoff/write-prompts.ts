import { join } from "node:path";
import { toJsonText, writeFileAtomic } from "../core/json-file.js";
import { CONDITIONS, type Condition } from "./fields.js";
import type { LoadedHandoffDataset } from "./load-dataset.js";
import { PROMPT_VERSION, promptFileName, renderPrompt } from "./prompt.js";
import { datasetRef } from "./record.js";
import { sha256 } from "../core/digest.js";

export interface PromptFile {
  case: string;
  condition: Condition;
  file: string;
  sha256: string;
}

export interface PromptSet {
  files: PromptFile[];
  /** File name to content, index.json included. */
  contents: Map<string, string>;
}

/** Every case x condition prompt plus index.json (hashes of each); no dates, so reruns give the same bytes. */
export function buildPromptSet(loaded: LoadedHandoffDataset): PromptSet {
  const contents = new Map<string, string>();
  const files: PromptFile[] = [];
  for (const c of loaded.dataset.cases) {
    for (const condition of CONDITIONS) {
      const text = renderPrompt(c, condition);
      const file = promptFileName(c.id, condition);
      contents.set(file, text);
      files.push({ case: c.id, condition, file, sha256: sha256(text) });
    }
  }
  contents.set("index.json", toJsonText({ dataset: datasetRef(loaded), prompt_version: PROMPT_VERSION, prompts: files }));
  return { files, contents };
}

export function writePromptSet(set: PromptSet, dir: string): void {
  for (const [file, text] of set.contents) writeFileAtomic(join(dir, file), text);
}
