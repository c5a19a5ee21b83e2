import { describe, expect, it } from "vitest";
import { repoEntry } from "../../src/importers/import-swebench.js";

describe("the SWE-bench importer names the runner a repository's test command starts", () => {
  it("a project's own unittest script (Django's runtests.py) is unittest, per repository and per version; pytest stays the unnamed default", () => {
    const django = repoEntry(
      "django/django",
      { test_command: "python tests/runtests.py --verbosity 2 {tests}" },
      undefined,
      "/out",
      "/map",
    );
    expect(django.environment).toMatchObject({ test_command: "python tests/runtests.py --verbosity 2 {tests}", test_runner: "unittest" });

    const pytestRepo = repoEntry("acme/calc", { test_command: "python3 -m pytest --junitxml={junit} {tests}" }, undefined, "/out", "/map");
    expect(pytestRepo.environment).not.toHaveProperty("test_runner");
    expect(repoEntry("acme/calc", undefined, undefined, "/out", "/map").environment).not.toHaveProperty("test_runner");

    const mixed = repoEntry(
      "acme/old",
      { versions: { "1.0": { test_command: "python -m unittest -v {tests}" }, "2.0": { test_command: "pytest {tests}" } } },
      undefined,
      "/out",
      "/map",
    );
    expect(mixed.environment?.variants?.["1.0"]).toMatchObject({ test_runner: "unittest" });
    expect(mixed.environment?.variants?.["2.0"]).not.toHaveProperty("test_runner");
  });
});
