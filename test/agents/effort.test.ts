import { describe, expect, it } from "vitest";
import { claudeCodeAgent, effortArgs } from "../../src/agents/claude-code.js";
import { codexAgent, configArgs } from "../../src/agents/codex.js";
import { geminiAgent } from "../../src/agents/gemini.js";
import { opencodeAgent, opencodeConfig, variantArgs } from "../../src/agents/opencode.js";

const endpoint = "http://127.0.0.1:9";

describe("effort: each CLI's highest by default, the CLI's own with effort=default", () => {
  it("Claude Code: --effort max unless told", async () => {
    expect(effortArgs({})).toEqual(["--effort", "max"]);
    expect(effortArgs({ effort: "max" })).toEqual(["--effort", "max"]);
    expect(effortArgs({ effort: "high" })).toEqual(["--effort", "high"]);
    expect(effortArgs({ effort: "default" })).toEqual([]);
    expect(() => claudeCodeAgent.parse({ effort: "extreme", base_url: endpoint })).toThrow(/effort/);
    // run.json records what the CLI was sent (null: its own default).
    const described = (o: Record<string, string>) =>
      claudeCodeAgent.create(claudeCodeAgent.parse({ base_url: endpoint, bin: "/bin/true", ...o })).describe!();
    expect((await described({})).effort).toBe("max");
    expect((await described({ effort: "default" })).effort).toBeNull();
  });

  it("Codex: -c model_reasoning_effort=xhigh unless told", async () => {
    const web = ["-c", 'web_search="disabled"', "-c", "tools.web_search=false"];
    expect(configArgs({})).toEqual(["-c", "model_reasoning_effort=xhigh", ...web]);
    expect(configArgs({ effort: "max" })).toEqual(["-c", "model_reasoning_effort=xhigh", ...web]);
    expect(configArgs({ effort: "low" })).toEqual(["-c", "model_reasoning_effort=low", ...web]);
    expect(configArgs({ effort: "default" })).toEqual(web);
    const described = await codexAgent.create(codexAgent.parse({ base_url: endpoint, bin: "/bin/true" })).describe!();
    expect(described.effort).toBe("xhigh");
  });

  it("OpenCode: the model family's highest variant unless told, offered in the custom provider's config", async () => {
    expect(variantArgs({ model: "anthropic/claude-opus-4-5" })).toEqual(["--variant", "max"]);
    expect(variantArgs({ model: "openai/gpt-5.5" })).toEqual(["--variant", "xhigh"]);
    expect(variantArgs({ model: "google/gemini-3-pro" })).toEqual(["--variant", "high"]);
    expect(variantArgs({ model: "mock/scripted" })).toEqual(["--variant", "high"]);
    expect(variantArgs({ model: "anthropic/claude-opus-4-5", effort: "low" })).toEqual(["--variant", "low"]);
    expect(variantArgs({ model: "anthropic/claude-opus-4-5", effort: "default" })).toEqual([]);
    const o = opencodeAgent.parse({ model: "mock/claude-sonnet-4-5", base_url: `${endpoint}/v1`, binary: "/bin/true" });
    const provider = (opencodeConfig(o, "/state").provider as Record<string, { models: Record<string, { variants?: unknown }> }>).mock!;
    expect(provider.models["claude-sonnet-4-5"]!.variants).toEqual({ max: { reasoningEffort: "max" } });
    const none = opencodeAgent.parse({
      model: "mock/claude-sonnet-4-5",
      base_url: `${endpoint}/v1`,
      binary: "/bin/true",
      effort: "default",
    });
    expect(
      (opencodeConfig(none, "/state").provider as Record<string, { models: Record<string, { variants?: unknown }> }>).mock!.models[
        "claude-sonnet-4-5"
      ]!.variants,
    ).toBeUndefined();
    expect((await opencodeAgent.create(o).describe!()).effort).toBe("max");
  });

  it("Gemini CLI has no effort setting: the option is refused, and run.json records none", async () => {
    expect(() => geminiAgent.parse({ effort: "max", base_url: endpoint, bin: "/bin/true" })).toThrow(
      /effort: unknown option of agent gemini/,
    );
    expect((await geminiAgent.create(geminiAgent.parse({ base_url: endpoint, bin: "/bin/true" })).describe!()).effort).toBeNull();
  });
});
