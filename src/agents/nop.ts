import { z } from "zod";
import { validateAgentOptions } from "./options.js";
import type { Agent, AgentFactory } from "./types.js";

const nopOptionsSchema = z.object({}).strict();

/** Does nothing and yields at once: the harness's own overhead, and a floor for every metric. */
export const nopAgent: AgentFactory<z.infer<typeof nopOptionsSchema>> = {
  name: "nop",
  description: "does nothing",
  capabilities: { confinable: true, limits: true, harnessSide: true, submission: "checkout" },
  parse: (options) => validateAgentOptions("nop", nopOptionsSchema, options),
  create: (): Agent => ({
    name: "nop",
    endpoints: [],
    startConversation: async () => ({
      send: async () => ({ outcome: "yielded" }),
      close: async () => undefined,
    }),
  }),
};
