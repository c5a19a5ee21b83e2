import { inputError } from "../core/errors.js";
import { claudeCodeAgent } from "./claude-code.js";
import { codexAgent } from "./codex.js";
import { commandAgent } from "./command.js";
import { geminiAgent } from "./gemini.js";
import { nopAgent } from "./nop.js";
import { oracleAgent } from "./oracle.js";
import { opencodeAgent } from "./opencode.js";
import type { Agent, AgentCapabilities, AgentFactory } from "./types.js";
import type { CliPackage } from "./cli-options.js";

/**
 * Every agent by name. To add one, write its factory in its own file (with its capabilities: what it can
 * be confined and limited by, its CLI package, its default artifact) and list it here; nothing else names it.
 */
const factories: Array<AgentFactory<unknown>> = [
  oracleAgent,
  nopAgent,
  commandAgent,
  opencodeAgent,
  claudeCodeAgent,
  codexAgent,
  geminiAgent,
];

/** Adds an agent at run time (a test double; the built-in ones are listed above). */
export function registerAgent(factory: AgentFactory<unknown>): void {
  if (factories.some((f) => f.name === factory.name)) throw new Error(`agent ${factory.name} is registered already`);
  factories.push(factory);
}

/** What the named agent declares it can be held to (registered agents only: InputError otherwise). */
export function agentCapabilities(name: string): AgentCapabilities {
  return agentFactory(name).capabilities;
}

/** The registered real coding-agent CLIs with their npm packages (what `doctor` checks). */
export function cliAgentPackages(): Array<[string, CliPackage]> {
  return factories.flatMap((f) => (f.capabilities.cli ? [[f.name, f.capabilities.cli] as [string, CliPackage]] : []));
}

/** What a registered agent declares, or undefined for a name no factory has (an agent made by hand, in a test). */
export function registeredCapabilities(name: string): AgentCapabilities | undefined {
  return factories.find((x) => x.name === name)?.capabilities;
}

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
