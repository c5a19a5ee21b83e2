import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPromptSet, CONDITIONS, FIELDS, PROMPT_VERSION, renderPrompt, writePromptSet } from "../../src/handoff/index.js";
import { sha256 } from "../../src/core/digest.js";
import { fixtureDataset, pilotDataset } from "./fixtures.js";
import { tempDir } from "./cli-helpers.js";

function readAll(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f))]),
  );
}

describe("prompts", () => {
  it("are the same bytes every time they are written", () => {
    const a = tempDir();
    const b = tempDir();
    writePromptSet(buildPromptSet(pilotDataset()), a);
    writePromptSet(buildPromptSet(pilotDataset()), b);
    const first = readAll(a);
    expect(first.size).toBe(6 * 3 + 1);
    expect(readAll(b)).toEqual(first);
  });

  it("have not changed by accident (update these hashes and bump PROMPT_VERSION on purpose)", () => {
    const fixture = fixtureDataset().dataset.cases[0]!;
    expect(PROMPT_VERSION).toBe(1);
    expect(sha256(renderPrompt(fixture, "memory"))).toBe("b893a278879071f767ee98b2072ec6ca45ba161c9fb3c42410107094a683f031");
    // The pilot's hash also changes when the pilot dataset is edited; that should be deliberate too.
    const pilot = pilotDataset().dataset.cases[0]!;
    expect(sha256(renderPrompt(pilot, "transcript"))).toBe("f0828eb0df190dca7ee6db5774a2b9adc675d255ea53225649607d3cb8e90a65");
  });

  it("give the condition's context, every candidate and the exact answer shape, but not the title or notes", () => {
    const c = pilotDataset().dataset.cases[0]!;
    for (const condition of CONDITIONS) {
      const text = renderPrompt(c, condition);
      expect(text).toContain(`----- BEGIN CONTEXT -----\n${c.conditions[condition]}\n----- END CONTEXT -----`);
      for (const f of FIELDS) for (const cand of c.candidates[f]) expect(text).toContain(`- ${cand.id}: ${cand.text}\n`);
      expect(text).toContain('  "objective": string,\n  "current_state": string[],');
      expect(text).not.toContain(c.title);
      expect(text).not.toContain(c.notes!);
      for (const other of CONDITIONS.filter((k) => k !== condition)) expect(text).not.toContain(c.conditions[other]);
    }
  });

  it("are indexed with their hashes, the dataset and the prompt version", () => {
    const set = buildPromptSet(fixtureDataset());
    const index = JSON.parse(set.contents.get("index.json")!) as {
      prompt_version: number;
      dataset: { sha256: string };
      prompts: { file: string; sha256: string }[];
    };
    expect(index.prompt_version).toBe(PROMPT_VERSION);
    expect(index.dataset.sha256).toBe(fixtureDataset().sha256);
    expect(index.prompts.map((p) => p.file)).toEqual([
      "f1.transcript.txt",
      "f1.memory.txt",
      "f1.handoff.txt",
      "f2.transcript.txt",
      "f2.memory.txt",
      "f2.handoff.txt",
    ]);
    for (const p of index.prompts) expect(sha256(set.contents.get(p.file)!)).toBe(p.sha256);
  });
});
