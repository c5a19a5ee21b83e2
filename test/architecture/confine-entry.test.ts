import { describe, expect, it } from "vitest";
import { sourceImports } from "./source-imports.js";

/**
 * One attempt's confinement is assembled inside src/confine/, behind the backend: the controller asks its
 * one entry for it, so a new backend (a container, say) is a backend file and a registry line, never a
 * change of the controller.
 */
describe("the controller reaches confinement through its entry", () => {
  it("src/run/controller.ts imports no file of src/confine/ but attempt-confinement.ts", () => {
    const controllerImports = sourceImports().filter(([from]) => from === "run/controller.ts");
    expect(controllerImports.length).toBeGreaterThan(0);
    const other = controllerImports
      .map(([, to]) => to)
      .filter((to) => to.startsWith("confine/") && to !== "confine/attempt-confinement.js");
    expect(other).toEqual([]);
  });
});
