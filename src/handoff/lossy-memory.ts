import type { HandoffDataset } from "./dataset-schema.js";

/**
 * A memory that loses detail, as a compressing memory does: of each line, only the first sentence,
 * clipped to `maxChars`. The pilot's retained-detail variant applies it to the memory condition
 * (the transcript and the structured handoff keep everything), so the three conditions differ in how
 * much detail they retain, not only in form.
 */
export function lossyMemory(memory: string, maxChars = 100): string {
  return memory
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const first = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
      return first.length > maxChars ? `${first.slice(0, maxChars - 1).trimEnd()}…` : first;
    })
    .join("\n");
}

/** The retained-detail variant of a dataset: same cases, candidates and key; the memory condition made lossy. */
export function retainedDetailVariant(d: HandoffDataset): HandoffDataset {
  return {
    ...d,
    version: `${d.version}-retained-detail`,
    name: `${d.name ?? "handoff dataset"} (retained-detail variant)`,
    description:
      "The same cases as the pilot, with the memory condition made lossy (the first sentence of each line, at most 100 characters): " +
      "the transcript keeps every detail, the handoff keeps structure and detail, the memory loses detail. Isolates retained detail; " +
      "pilot.json (every condition carries every answer) isolates the form.",
    cases: d.cases.map((c) => ({ ...c, conditions: { ...c.conditions, memory: lossyMemory(c.conditions.memory) } })),
  };
}
