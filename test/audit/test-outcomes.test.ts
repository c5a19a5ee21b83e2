import { describe, expect, it } from "vitest";
import { baseCollectionErrors, judgeOutcomes } from "../../src/audit/test-outcomes.js";
import type { ManifestTask } from "../../src/manifests/task-manifest.js";

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
    expect(baseCollectionErrors(["tests/codemods/"], ["tests/codemods/"], [`${codemods}::test_y`])).toEqual({
      base: ["tests/codemods/"],
      environment: [],
    });
  });
});

describe("judgeOutcomes: declared P2P failing at the base", () => {
  const gated = "tests/test_options.py::test_counting";
  const behaves = "tests/test_types.py::test_range";
  const task = { stages: [{ tests: [] }], verifier: { fail_to_pass: [], pass_to_pass: [gated, behaves] } } as unknown as ManifestTask;
  const passes = new Map([
    [gated, [false, true]],
    [behaves, [false, true]],
  ]);

  // click-d77a0aefad: tests/test_options.py parametrizes with IntRange(min_open=...), which only its stages add.
  it("says how many fail only because their module is not collected there", () => {
    const [f] = judgeOutcomes(task, passes, new Set([gated]));
    expect(f?.what).toBe(
      "2 declared P2P test(s) do not pass at the base: the verifier scores a requirement no request states; " +
        "1 of them only because their module cannot be collected there (an old test a stage's import gates is neither F2P nor P2P)",
    );
  });
});
