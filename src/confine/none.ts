import type { ConfineBackend } from "./backend.js";

/** `--sandbox none`: nothing is confined; run.json says why and what that leaves open. */
export const noneBackend: ConfineBackend = {
  mode: "none",
  summary: "nothing confined: the agent and the test runs run as the caller",
  confines: false,
  install: null,
  probe: () => ({ problem: null }),
  record: ({ unconfinedBecause }) => ({
    mode: "none",
    network: "on",
    enforced: [],
    not_enforced: [unconfinedBecause ?? "the agent runs as the caller with the whole machine in reach", "verifier test runs unconfined"],
  }),
  agentSandbox: async () => undefined,
  testRun: () => ({ wrap: null, note: "none (the test run runs as the caller)" }),
};
