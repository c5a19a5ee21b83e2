import { inputError } from "../core/errors.js";
import { claudeCodeAgent } from "./claude-code.js";
import { codexAgent } from "./codex.js";
import { commandAgent } from "./command.js";
import { geminiAgent } from "./gemini.js";
import { nopAgent } from "./nop.js";
import { oracleAgent } from "./oracle.js";
import { opencodeAgent } from "./opencode.js";
import type { Agent, AgentFactory } from "./types.js";

/** Every agent by name. To add one, write its factory in its own file and list it here. */
const factories: ReadonlyArray<AgentFactory<unknown>> = [oracleAgent, nopAgent, commandAgent, opencodeAgent, claudeCodeAgent, codexAgent, geminiAgent];

export function agentNames(): string[] {
  return factories.map((f) => f.name).sort();
}

export function agentFactory(name: string): AgentFactory<unknown> {
  const f = factories.find((x) => x.name === name);
  if (!f) throw inputError("--agent", "", `unknown agent "${name}" (known: ${agentNames().join(", ")})`);
  return f;
}

/** Validates the options of the named agent (InputError on any problem) and builds it. */
export function createAgent(name: string, options: Record<string, string>): Agent {
  const f = agentFactory(name);
  return f.create(f.parse(options));
}
