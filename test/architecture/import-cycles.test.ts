import { describe, expect, it } from "vitest";
import { importCycles, sourceImports } from "./source-imports.js";

describe("import circles", () => {
  it("the circle finder finds a circle, and only a circle", () => {
    const edges: Array<[string, string]> = [
      ["report/a.ts", "report/b.js"],
      ["report/b.ts", "report/c.js"],
      ["report/c.ts", "report/a.js"],
      ["report/c.ts", "formats/x.js"],
      ["report/d.ts", "report/a.js"],
    ];
    expect(importCycles(edges, "report")).toEqual([["report/a.ts", "report/b.ts", "report/c.ts", "report/a.ts"]]);
    expect(importCycles(edges.slice(0, 2), "report")).toEqual([]);
  });

  // The report grows (sections, schemas, the page's viewer): files that import each other cannot be read,
  // tested or moved one at a time. Schemas sit below sections, cell formatting in a file of its own.
  it("no file of src/report/ imports itself through others", () => {
    expect(importCycles(sourceImports(), "report").map((c) => c.join(" -> "))).toEqual([]);
  });
});
