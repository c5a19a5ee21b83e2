import { describe, expect, it } from "vitest";
import { atifTrajectorySchema } from "../../src/formats/atif.js";
import { formatFieldPath } from "../../src/core/errors.js";

/** A small document in the shape of the RFC's examples: a user request, an agent step with a tool call and its result. */
function valid(): Record<string, unknown> {
  return {
    schema_version: "ATIF-v1.7",
    session_id: "0b9c6a1e-0000-4000-8000-000000000000",
    trajectory_id: "t1.switch",
    agent: { name: "claude-code", version: "2.0.0", model_name: "claude-x" },
    steps: [
      { step_id: 1, timestamp: "2026-01-01T00:00:00Z", source: "user", message: "Fix the parser." },
      {
        step_id: 2,
        source: "agent",
        model_name: "claude-x",
        message: "Reading the file.",
        tool_calls: [{ tool_call_id: "c1", function_name: "Read", arguments: { file_path: "a.py" } }],
        observation: { results: [{ source_call_id: "c1", content: "print(1)", extra: { status: "completed" } }] },
        metrics: { prompt_tokens: 1000, completion_tokens: 40, cached_tokens: 300, cost_usd: 0.01 },
        llm_call_count: 1,
      },
      { step_id: 3, source: "system", message: "request 0 ended" },
    ],
    final_metrics: { total_prompt_tokens: 1000, total_completion_tokens: 40, total_cached_tokens: 300, total_steps: 3 },
    continued_trajectory_ref: "t1.switch.2.json",
  };
}

const problems = (doc: unknown) => {
  const r = atifTrajectorySchema.safeParse(doc);
  return r.success ? [] : r.error.issues.map((i) => `${formatFieldPath(i.path)}: ${i.message}`);
};

describe("the ATIF v1.7 schema", () => {
  it("accepts a document of the RFC's shape, and the versions before 1.7", () => {
    expect(problems(valid())).toEqual([]);
    expect(problems({ ...valid(), schema_version: "ATIF-v1.6" })).toEqual([]);
  });

  it("refuses what Harbor's models refuse", () => {
    // [what, field path, new value (undefined: remove the field), the problem expected]
    const cases: Array<[string, Array<string | number>, unknown, RegExp]> = [
      ["unknown version", ["schema_version"], "ATIF-v2.0", /^schema_version: /],
      ["a field ATIF does not list", ["steps", 0, "role"], "user", /^steps\[0\]: .*role/],
      ["step ids out of order", ["steps", 2, "step_id"], 5, /^steps\[2\]\.step_id: expected 3/],
      ["metrics on a user step", ["steps", 0, "metrics"], { prompt_tokens: 1 }, /^steps\[0\]\.metrics: only allowed on agent steps/],
      [
        "a result of no tool call of the step",
        ["steps", 1, "observation", "results", 0, "source_call_id"],
        "c9",
        /^steps\[1\]\.observation\.results\[0\]\.source_call_id: "c9" is no tool_call_id/,
      ],
      [
        "metrics on a deterministic dispatch",
        ["steps", 1, "llm_call_count"],
        0,
        /^steps\[1\]\.metrics: must be absent when llm_call_count is 0/,
      ],
      ["an agent without a version", ["agent", "version"], undefined, /^agent\.version: /],
      ["a source ATIF does not know", ["steps", 2, "source"], "environment", /^steps\[2\]\.source: /],
      ["negative tokens", ["final_metrics", "total_prompt_tokens"], -1, /^final_metrics\.total_prompt_tokens: /],
    ];
    for (const [what, path, value, expected] of cases) {
      const d = valid();
      const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, d);
      const key = path.at(-1)!;
      if (value === undefined) delete parent[key];
      else parent[key] = value;
      const found = problems(d);
      expect(
        found.some((p) => expected.test(p)),
        `${what}: ${found.join(" | ")}`,
      ).toBe(true);
    }
  });
});
