import type { Command } from "commander";
import { checkAgent } from "../../agents/check.js";
import { parseAgentOptionPairs } from "../../agents/options.js";
import { agentFactory, agentNames } from "../../agents/registry.js";
import { inputError } from "../../core/errors.js";
import { collect } from "../options.js";

export function registerAgents(program: Command): void {
  const agents = program.command("agents").description("the agents switch-swe can drive");
  agents
    .command("list")
    .description("list the agents and what they are")
    .action(() => {
      for (const name of agentNames()) process.stdout.write(`${name.padEnd(12)} ${agentFactory(name).description}\n`);
    });
  agents
    .command("check")
    .description(
      "send one tiny request and one resumed request through an agent's real configuration: CLI and version, model, events, usage, resume",
    )
    .requiredOption("--agent <name>", `agent: ${agentNames().join(", ")}`)
    .option("--agent-opt <key=value>", "agent option (repeatable)", collect)
    .option("--timeout <s>", "seconds allowed per request", "180")
    .action(async (o: { agent: string; agentOpt?: string[]; timeout: string }) => {
      const timeoutS = Number(o.timeout);
      if (!(timeoutS > 0)) throw inputError("--timeout", "", "must be a positive number of seconds");
      const { items } = await checkAgent(o.agent, parseAgentOptionPairs(o.agentOpt ?? []), timeoutS * 1000);
      for (const item of items) process.stdout.write(`${item.ok ? "ok  " : "FAIL"} ${item.check.padEnd(7)} ${item.detail}\n`);
      if (items.some((i) => !i.ok)) process.exitCode = 1;
    });
}
