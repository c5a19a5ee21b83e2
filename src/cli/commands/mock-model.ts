import type { Command } from "commander";
import { parseInteger } from "../options.js";
import { untilStopped } from "../until-stopped.js";
import { loadScript } from "../../mock-model/script.js";
import { startMockModel } from "../../mock-model/server.js";

export function registerMockModel(program: Command): void {
  program
    .command("mock-model")
    .description(
      "serve a scripted model on 127.0.0.1 that speaks OpenAI chat completions and Responses, Anthropic Messages and Gemini (deterministic replays of agent setups)",
    )
    .requiredOption("--script <file>", "JSON script: a list of turns, or {turns, fallback, models} (docs/rcm.md)")
    .option("--port <n>", "port; 0 picks a free one", parseInteger("--port", 0, 65535), 0)
    .option("--record <file>", "append every request received to this JSONL file")
    .action(async (o: { script: string; port: number; record?: string }) => {
      const script = loadScript(o.script);
      const server = await startMockModel({ script, port: o.port, ...(o.record ? { recordFile: o.record } : {}) });
      process.stdout.write(`listening on ${server.baseURL} (port ${server.port}; Anthropic and Gemini clients: ${server.origin})\n`);
      await untilStopped(() => server.close());
      const unused = server.unusedTurns();
      if (unused.length > 0) process.stderr.write(`mock-model: ${unused.length} script turn(s) never used: ${unused.join(", ")}\n`);
    });
}
