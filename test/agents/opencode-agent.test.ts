import { describe, expect, it } from "vitest";
import { opencodeAgent, opencodeConfig, opencodeEvents, type OpencodeOptions } from "../../src/agents/opencode.js";

describe("opencode agent: options, config and events", () => {
  it("validates options and names the key at fault", () => {
    expect(() => opencodeAgent.parse({})).toThrow(/model/);
    expect(() => opencodeAgent.parse({ model: "nomodel" })).toThrow(/PROVIDER\/MODEL/);
    expect(() => opencodeAgent.parse({ model: "p/m", rcm: "max" })).toThrow(/rcm/);
    expect(() => opencodeAgent.parse({ model: "p/m", colour: "red" })).toThrow(/colour: unknown option of agent opencode/);
    expect(() => opencodeAgent.parse({ model: "p/m", binary: "/nonexistent/opencode" })).toThrow(/opencode not found/);
  });

  it("builds an isolated config: custom provider without auto-compaction, permissions, the plugin with its options", () => {
    const o = {
      model: "mock/scripted",
      rcm: "rcm",
      threshold: 0.8,
      base_url: "http://127.0.0.1:9/v1",
      context: 0,
      output: 8192,
      binaryPath: "/x",
    } as OpencodeOptions;
    const c = opencodeConfig(o, "/state/rcm");
    expect(c).toMatchObject({
      provider: {
        mock: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: "http://127.0.0.1:9/v1" },
          models: { scripted: { limit: { context: 0 } } },
        },
      },
      permission: { edit: "allow", bash: "allow", external_directory: "allow" },
      plugin: [[expect.stringMatching(/^file:\/\//), { mode: "rcm", threshold: 0.8, stateDir: "/state/rcm" }]],
    });
    expect(opencodeConfig({ ...o, rcm: "off" }, "/s").plugin).toBeUndefined();
  });

  it("rcm_state=model: the plugin's auxiliary model also writes state items (stateUpdates), whichever model it is", () => {
    const o = {
      model: "mock/scripted",
      rcm: "rcm",
      threshold: 0.8,
      base_url: "http://127.0.0.1:9/v1",
      output: 8192,
      binaryPath: "/x",
      rcm_state: "model",
    } as OpencodeOptions;
    const auxOf = (extra: Partial<OpencodeOptions>) =>
      (opencodeConfig({ ...o, ...extra }, "/s").plugin as Array<[string, { auxModel?: unknown }]>)[0]![1].auxModel;
    expect(auxOf({})).toEqual({ host: true, stateUpdates: true });
    expect(auxOf({ aux_model: "other/model" })).toEqual({ host: true, model: "other/model", stateUpdates: true });
    expect(auxOf({ aux_model: "http://127.0.0.1:9/v1|aux" })).toEqual({
      baseURL: "http://127.0.0.1:9/v1",
      model: "aux",
      stateUpdates: true,
    });
    expect(auxOf({ rcm_state: "extractive" })).toBeUndefined();
    expect(() => opencodeAgent.parse({ model: "p/m", rcm: "rcm", rcm_state: "model", aux_model: "off" })).toThrow(
      /rcm_state: model-written state needs the auxiliary model/,
    );
    expect(() => opencodeAgent.parse({ model: "p/m", rcm_state: "llm" })).toThrow(/rcm_state/);
  });

  it("turns the JSON event stream into agent events", () => {
    const step = opencodeEvents(
      JSON.stringify({
        type: "step_finish",
        sessionID: "ses_1",
        part: { tokens: { input: 100, output: 20, reasoning: 5, cache: { read: 300, write: 7 } }, cost: 0.01 },
      }),
      "p/m",
    );
    expect(step).toEqual({
      sessionID: "ses_1",
      events: [
        {
          kind: "model_call",
          model: "p/m",
          input_tokens: 100,
          output_tokens: 20,
          cached_input_tokens: 300,
          cache_write_tokens: 7,
          reasoning_tokens: 5,
          cost_usd: 0.01,
        },
      ],
    });
    const tool = opencodeEvents(
      JSON.stringify({
        type: "tool_use",
        sessionID: "ses_1",
        part: {
          tool: "write",
          state: { status: "completed", input: { filePath: "/w/a.py", content: "x" }, output: "Wrote file successfully." },
        },
      }),
      "p/m",
    );
    expect(tool.events).toEqual([
      {
        kind: "tool_call",
        name: "write",
        args: { filePath: "/w/a.py", content: "x" },
        paths: ["/w/a.py"],
        status: "completed",
        output: "Wrote file successfully.",
      },
    ]);
    expect(opencodeEvents(JSON.stringify({ type: "text", part: { text: "Done." } }), "p/m").events).toEqual([
      { kind: "text", text: "Done." },
    ]);
    const err = opencodeEvents(
      JSON.stringify({ type: "error", sessionID: "ses_1", error: { name: "APIError", data: { message: "rate limited" } } }),
      "p/m",
    );
    expect(err).toMatchObject({ error: "rate limited", events: [{ kind: "error", message: "rate limited" }] });
    expect(opencodeEvents("not json", "p/m").events).toEqual([{ kind: "text", text: "not json" }]);
    expect(opencodeEvents(JSON.stringify({ type: "step_start", sessionID: "ses_1" }), "p/m")).toEqual({ sessionID: "ses_1", events: [] });
  });
});
