import { describe, expect, it } from "vitest";
import { contextLimit, defaultContextLimit } from "../../src/agents/context-limits.js";
import { opencodeAgent, opencodeConfig } from "../../src/agents/opencode.js";

describe("opencode: context limit, effort, harness record", () => {
  it("takes the context limit from context=N, else the model's known limit, else the default; OpenCode's own database without base_url", () => {
    expect(contextLimit("mock/scripted", true, 5000)).toEqual({ limit: 5000, source: "option" });
    expect(contextLimit("mock/scripted", true, 0)).toEqual({ limit: 0, source: "option" });
    expect(contextLimit("anthropic/claude-sonnet-4-5", true, undefined)).toEqual({ limit: 200_000, source: "known" });
    expect(contextLimit("vllm/Qwen3-Coder-480B", true, undefined)).toEqual({ limit: 262_144, source: "known" });
    expect(contextLimit("mock/scripted", true, undefined)).toEqual({ limit: defaultContextLimit, source: "default" });
    expect(contextLimit("anthropic/claude-sonnet-4-5", false, undefined)).toEqual({ limit: null, source: "opencode" });
  });

  it("a custom model keeps auto-compaction on (a non-zero limit) and offers the effort as a variant", () => {
    const o = opencodeAgent.parse({ model: "mock/scripted", base_url: "http://127.0.0.1:9/v1", effort: "high" });
    const models = (opencodeConfig(o, "/s").provider as Record<string, { models: Record<string, unknown> }>).mock!.models;
    expect(models.scripted).toEqual({
      name: "scripted",
      limit: { context: defaultContextLimit, output: 8192 },
      variants: { high: { reasoningEffort: "high" } },
    });
    expect(() => opencodeAgent.parse({ model: "mock/scripted", effort: "High Effort" })).toThrow(/effort: must be a variant name/);
  });

  it("describes itself for run.json: version from the CLI, model, effort, and which context limit applies", async () => {
    const agent = opencodeAgent.create(
      opencodeAgent.parse({ model: "mock/claude-opus-4-5", base_url: "http://127.0.0.1:9/v1", effort: "max" }),
    );
    expect(await agent.describe!()).toMatchObject({
      name: "opencode",
      package: "opencode-ai",
      version: "1.18.33",
      model: "mock/claude-opus-4-5",
      effort: "max",
      settings: { rcm: "off", context_limit: 200_000, context_limit_source: "known", auto_compaction: true },
    });
  });
});
