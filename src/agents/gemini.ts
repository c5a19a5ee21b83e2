import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CliDriver } from "./cli-conversation.js";
import { cliAgent, type CliAgentOptions } from "./cli-agent.js";
import { cliEnv, cliHome } from "./cli-launch.js";
import { cliOptionFields, type CliPackage } from "./cli-options.js";
import { GeminiParser, newGeminiState } from "./gemini-events.js";
import { sessionRoot } from "./session-root.js";
import type { AgentContext, AgentRequest } from "./types.js";

/** Gemini CLI exposes no reasoning-effort setting: `effort` is not an option of this agent. */
const geminiOptionsSchema = z.object({ ...cliOptionFields }).strict();

export type GeminiOptions = CliAgentOptions<z.infer<typeof geminiOptionsSchema>>;

export const geminiPackage: CliPackage = { command: "gemini", npm: "@google/gemini-cli", version: "0.61.0" };

/**
 * The session's ~/.gemini/settings.json: API-key auth (without it the CLI exits 41), no updates, no
 * telemetry, and no session clean-up (it deletes chats the harness resumes).
 */
export const geminiSettings = {
  security: { auth: { selectedType: "gemini-api-key" } },
  general: { disableAutoUpdate: true, disableUpdateNag: true, sessionRetention: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

function geminiDriver(ctx: AgentContext, o: GeminiOptions): CliDriver {
  const home = cliHome(ctx, join(ctx.stateDir, "home"));
  // Written and read (the chat files) on the host side; the CLI finds it as ~/.gemini.
  const geminiDir = join(home.host, ".gemini");
  const own: Record<string, string> = {
    GEMINI_API_KEY: process.env[o.api_key_env ?? "GEMINI_API_KEY"] ?? "switch-swe",
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
  if (o.base_url) own.GOOGLE_GEMINI_BASE_URL = o.base_url.replace(/\/+$/, "").replace(/\/v1beta$/, "");
  const env = cliEnv(ctx, home, o.pass, own);
  mkdirSync(geminiDir, { recursive: true });
  const settings = o.web === "on" ? geminiSettings : { ...geminiSettings, tools: { exclude: ["web_fetch", "google_web_search"] } };
  writeFileSync(join(geminiDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  const state = newGeminiState();
  return {
    cli: "gemini",
    binaryPath: o.binaryPath,
    // Sessions belong to the project directory: every request runs in the session root.
    cwd: sessionRoot(ctx, "gemini"),
    env,
    args: (_req: AgentRequest, session: string | null) => [
      "-o",
      "stream-json",
      "--skip-trust",
      "--yolo",
      ...(o.model ? ["-m", o.model] : []),
      ...(session ? ["--resume", session] : []),
      ...o.extra,
    ],
    input: (req: AgentRequest) => req.message,
    parser: () => new GeminiParser(state, geminiDir),
  };
}

/**
 * Real Gemini CLI (`@google/gemini-cli` 0.61.0): one `gemini -o stream-json --yolo` per request, the
 * message on stdin, `--resume SESSION` after the first, in the session root; usage per model call
 * from the session's chat file in the private HOME.
 */
export const geminiAgent = cliAgent({
  name: "gemini",
  description: "real Gemini CLI (gemini -o stream-json --yolo); model=, base_url= (Gemini API endpoint)",
  pkg: geminiPackage,
  schema: geminiOptionsSchema,
  defaultKeyEnv: "GEMINI_API_KEY",
  defaultEndpoint: "https://generativelanguage.googleapis.com",
  driver: geminiDriver,
});
