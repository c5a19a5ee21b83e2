import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { sourceImports as imports } from "./source-imports.js";

/**
 * The layers of docs/architecture.md, bottom first. A folder may import from its own layer and the ones
 * below it; an import that runs back up the pipeline is a bug in the shape of the code.
 */
const layers: string[][] = [
  ["core"],
  ["formats"],
  ["confine"],
  ["dataset"],
  ["manifests"],
  ["testbed"],
  ["sessions", "rcm", "mock-model"],
  ["agents", "verify", "qualify", "importers", "mine", "audit"],
  ["run"],
  ["report", "export", "opencode-plugin", "handoff", "queue", "doctor"],
  ["cli"],
];
const rank = new Map(layers.flatMap((names, i) => names.map((n) => [n, i] as const)));

describe("the layers of the code", () => {
  it("every folder of src/ has a layer", () => {
    const folders = readdirSync(join(packageRoot, "src"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((f) => !rank.has(f))).toEqual([]);
  });

  it("no import runs back up the pipeline", () => {
    const upward = imports()
      .filter(([from, to]) => (rank.get(to.split("/")[0]!) ?? -1) > (rank.get(from.split("/")[0]!) ?? -1))
      .map(([from, to]) => `${from} -> ${to}`);
    expect(upward).toEqual([]);
  });
});
