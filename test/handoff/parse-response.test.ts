import { describe, expect, it } from "vitest";
import { parseModelResponse } from "../../src/handoff/index.js";

const answer = { objective: "o1", current_state: ["s1", "s2"], owner: null };

describe("parseModelResponse", () => {
  it("reads a bare JSON object", () => {
    expect(parseModelResponse(` ${JSON.stringify(answer)}\n`)).toEqual({ kind: "answer", answers: answer, problems: [] });
  });

  it("unwraps a reply that is one fenced json block, and nothing else", () => {
    expect(parseModelResponse("```json\n" + JSON.stringify(answer) + "\n```")).toEqual({ kind: "answer", answers: answer, problems: [] });
    expect(parseModelResponse("```\n" + JSON.stringify(answer) + "\n```").kind).toBe("answer");
    expect(parseModelResponse("Here you go:\n```json\n" + JSON.stringify(answer) + "\n```").kind).toBe("invalid-json");
  });

  it("repairs nothing: prose, trailing commas, single quotes and truncation are invalid", () => {
    for (const text of ['Sure! {"objective": "o1"}', '{"objective": "o1",}', "{'objective': 'o1'}", '{"objective": "o1"', "", "   "]) {
      expect(parseModelResponse(text).kind).toBe("invalid-json");
    }
    expect(parseModelResponse("")).toEqual({ kind: "invalid-json", detail: "empty response" });
  });

  it("rejects JSON that is not an object", () => {
    expect(parseModelResponse('["o1"]')).toEqual({ kind: "invalid-json", detail: "the JSON is a list, not an object" });
    expect(parseModelResponse('"o1"')).toEqual({ kind: "invalid-json", detail: "the JSON is a string, not an object" });
    expect(parseModelResponse("null")).toEqual({ kind: "invalid-json", detail: "the JSON is null, not an object" });
  });

  it("keeps usable fields, drops values of the wrong type and ignores unknown keys, noting each", () => {
    expect(parseModelResponse('{"objective": "o1", "decisions": [1, 2], "owner": {"id": "w1"}, "reasoning": "because"}')).toEqual({
      kind: "answer",
      answers: { objective: "o1" },
      problems: [
        "decisions: a list holding a number is not an id or a list of ids (dropped)",
        "owner: an object is not an id or a list of ids (dropped)",
        'unknown key "reasoning" in the response (ignored)',
      ],
    });
  });
});
