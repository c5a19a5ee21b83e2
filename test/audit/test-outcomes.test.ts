import { describe, expect, it } from "vitest";
import { baseCollectionErrors } from "../../src/audit/test-outcomes.js";

describe("baseCollectionErrors", () => {
  const codemods = "tests/codemods/test_codemods.py";
  const pretty = "tests/cover/test_pretty.py";

  // hypothesis-f95f5793f3: the codemods tests import libcst, which the environment does not install.
  it("a module failing after the last stage too, with no declared test, is the environment's", () => {
    expect(baseCollectionErrors([codemods], [codemods], [`${pretty}::test_x`])).toEqual({ base: [], environment: [codemods] });
  });

  it("a module the stages repair is the base's", () => {
    expect(baseCollectionErrors([pretty], [], [`${pretty}::test_x`])).toEqual({ base: [pretty], environment: [] });
  });

  it("a module holding a declared test is the base's even when it fails in every state", () => {
    expect(baseCollectionErrors([codemods], [codemods], [`${codemods}::test_y`])).toEqual({ base: [codemods], environment: [] });
  });

  it("a directory scope covers the declared tests below it", () => {
    expect(baseCollectionErrors(["tests/codemods/"], ["tests/codemods/"], [`${codemods}::test_y`])).toEqual({ base: ["tests/codemods/"], environment: [] });
  });
});
