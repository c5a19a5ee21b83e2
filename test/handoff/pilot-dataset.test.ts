import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONDITIONS, FIELDS, parseHandoffDataset } from "../../src/handoff/index.js";
import { lossyMemory, retainedDetailVariant } from "../../src/handoff/lossy-memory.js";
import { pilotPath } from "./cli-helpers.js";
import { isSingleValue } from "../../src/handoff/fields.js";
import { pilotDataset } from "./fixtures.js";

describe("the pilot dataset", () => {
  const { dataset } = pilotDataset();

  it("has at least six cases, each with all three conditions", () => {
    expect(dataset.cases.length).toBeGreaterThanOrEqual(6);
    for (const c of dataset.cases) for (const k of CONDITIONS) expect(c.conditions[k].length).toBeGreaterThan(200);
  });

  it("offers a distractor in every field of every case", () => {
    for (const c of dataset.cases) {
      for (const f of FIELDS) {
        const key = new Set(isSingleValue(f) ? [c.answer[f] as string] : (c.answer[f] as string[]));
        expect(
          c.candidates[f].some((cand) => !key.has(cand.id)),
          `${c.id}.${f}`,
        ).toBe(true);
        expect(new Set(c.candidates[f].map((cand) => cand.text)).size, `${c.id}.${f} texts`).toBe(c.candidates[f].length);
      }
    }
  });

  it("does not put the right single-value answer in the same position every time", () => {
    for (const f of FIELDS.filter(isSingleValue)) {
      const positions = new Set(dataset.cases.map((c) => c.candidates[f].findIndex((cand) => cand.id === c.answer[f])));
      expect(positions.size, f).toBeGreaterThan(1);
    }
  });

  it("exercises an empty key, and owners who are people as well as the agent", () => {
    expect(dataset.cases.some((c) => FIELDS.some((f) => Array.isArray(c.answer[f]) && (c.answer[f] as string[]).length === 0))).toBe(true);
    const owners = dataset.cases.map((c) => c.candidates.owner.find((w) => w.id === c.answer.owner)!.text);
    expect(owners.filter((t) => t.startsWith("You")).length).toBeGreaterThan(0);
    expect(owners.filter((t) => !t.startsWith("You")).length).toBeGreaterThan(0);
  });
});

describe("the pilot's retained-detail variant", () => {
  const variantPath = join(dirname(pilotPath), "pilot-retained-detail.json");

  it("is the pilot with a lossy memory: same cases, candidates and key; transcript and handoff unchanged", () => {
    const pilot = pilotDataset().dataset;
    const variant = parseHandoffDataset(variantPath, readFileSync(variantPath, "utf8")).dataset;
    expect(variant).toEqual(retainedDetailVariant(pilot));
    pilot.cases.forEach((c, i) => {
      const v = variant.cases[i]!;
      expect(v.candidates).toEqual(c.candidates);
      expect(v.answer).toEqual(c.answer);
      expect(v.conditions.transcript).toBe(c.conditions.transcript);
      expect(v.conditions.handoff).toBe(c.conditions.handoff);
      // The memory keeps less: shorter, and every line of it begins a line of the pilot's memory.
      expect(v.conditions.memory.length).toBeLessThan(c.conditions.memory.length * 0.8);
      for (const line of v.conditions.memory.split("\n")) expect(c.conditions.memory).toContain(line.replace(/…$/, ""));
    });
  });

  it("lossyMemory keeps the first sentence of each line, clipped", () => {
    expect(lossyMemory("Fixed the parser. Tests pass.\n\nNext: add docs. Then release.", 12)).toBe("Fixed the p…\nNext: add d…");
    expect(lossyMemory("No full stop here")).toBe("No full stop here");
  });
});
