import { InputError } from "../core/errors.js";
import { InfraFault } from "../core/infra-fault.js";
import type { AgentSandbox, AgentSandboxRequest, ConfineBackend, RecordRequest, SandboxRecord, TestRunSpec } from "./backend.js";
import { bwrapCommand, bwrapProblem, bwrapVersion, hardeningSummary, pythonPrefixes, sandboxHardening } from "./bubblewrap.js";
import { endpointsOf, openEgressGate } from "./egress.js";
import { modelEndpoints } from "./record.js";
import { giveToSandbox } from "./sandbox-user.js";
import { sessionSandbox } from "./session-sandbox.js";

const mode = "bwrap";

/**
 * Bubblewrap (bubblewrap.ts): every agent request in the session's sandbox (session-sandbox.ts: the
 * five workspaces, a private HOME, the task's environment, the network of `--network`), every test run
 * with its checkout and environment only and no network; both hardened as far as this machine allows.
 */
export const bwrapBackend: ConfineBackend = {
  mode,
  summary: "bubblewrap: the agent sees its workspaces only, each test run its checkout only (docs/verification.md)",
  confines: true,
  install: "apt-get install bubblewrap",
  probe: () => {
    const problem = bwrapProblem();
    return problem
      ? { problem }
      : { problem: null, detail: `bubblewrap ${bwrapVersion() ?? "(no version given)"}, starts a sandbox`, hardening: sandboxHardening() };
  },
  record,
  agentSandbox,
  testRun: (spec) => ({
    wrap: testRunWrap(spec),
    checkoutInside: testbedPath,
    note: `bwrap (the checkout and its environment only, no network; ${hardeningSummary()}; the checkout at ${testbedPath})`,
  }),
};

/** The session's sandbox; under `--network model` with the relays to the allowed endpoints (egress.ts), closed with it. */
async function agentSandbox({ allowedEndpoints, ...o }: AgentSandboxRequest): Promise<AgentSandbox> {
  const egress = allowedEndpoints ? await openEgressGate(endpointsOf(allowedEndpoints)) : null;
  try {
    return { ...sessionSandbox({ ...o, ...(egress ? { egress } : {}) }), close: async () => egress?.close() };
  } catch (e) {
    await egress?.close();
    throw e;
  }
}

/**
 * Where a test run sees its checkout: the same neutral path in every run, so the code under test
 * cannot learn from its working directory where the harness keeps it (the verifier's scratch, a
 * mining checkout named by its commit, the cache).
 */
export const testbedPath = "/testbed";

function testRunWrap(spec: TestRunSpec) {
  const problem = bwrapProblem();
  if (problem) throw new InfraFault(`the verifier's sandbox cannot start: ${problem} (or verify with --sandbox none)`, false);
  const system = pythonPrefixes(spec.python, spec.env.PATH ?? "");
  // The run writes its checkout and scratch as the sandbox's user (as root: an unprivileged uid), whatever wrote them before.
  giveToSandbox(spec.writable);
  const at = (src: string) => (src === spec.checkout ? { dest: testbedPath } : {});
  const binds = [...spec.writable.map((src) => ({ src, rw: true, ...at(src) })), ...spec.readable.map((src) => ({ src, ...at(src) }))];
  return (argv: readonly string[]) => bwrapCommand({ binds, system, network: false, chdir: testbedPath }, argv);
}

/**
 * What run.json records about a bubblewrap run: in plain words what is enforced and what is not, so a
 * reader of the results knows what the verdicts rest on. An agent that declares it cannot be confined
 * runs unconfined (`mode: none`) while its artifacts are still verified under bubblewrap (`verifier`).
 */
function record({ network, agent, unconfinedBecause }: RecordRequest): SandboxRecord {
  const problem = bwrapProblem();
  if (problem)
    throw new InputError([
      { file: "--sandbox", path: mode, message: `${problem}; or run with --sandbox none (nothing confined); see switch-swe doctor` },
    ]);
  // The same for every sandbox of this process: the agent's requests and the verifier's test runs.
  const hardening = sandboxHardening();
  const parts = [hardening.host_user, hardening.user_namespace, hardening.capabilities, hardening.syscall_filter];
  const missing = parts.filter((p) => !p.applied).map((p) => `every sandbox (agent and verifier): ${p.detail}`);
  if (!agent.confinable) {
    const why = unconfinedBecause ?? `agent ${agent.name} cannot be started in the sandbox yet: it runs unconfined`;
    return {
      mode: "none",
      verifier: mode,
      network: "on",
      enforced: ["verifier test runs: checkout and environment (read-only) only, no network, new PID namespace"],
      not_enforced: [why, ...missing],
      hardening,
    };
  }
  const allowed = network === "model" ? modelEndpoints(agent.name, agent.endpoints) : undefined;
  return {
    mode,
    network,
    ...(allowed ? { allowed_endpoints: allowed } : {}),
    enforced: [
      ...(parts.every((p) => p.applied)
        ? [
            "never host root, no capability in the machine's user namespace, even when the harness runs as root: " +
              hardening.host_user.detail +
              "; all capabilities dropped; a syscall filter (file handles, mounts, namespaces, io_uring, ptrace refused); /proc/sys and the rest of /proc runtimes protect read-only; binds nosuid",
          ]
        : []),
      "workspaces at /workspace/<repo>/w00..w04 in every session; nothing else of the machine writable",
      "private HOME and TMPDIR; no dataset, run directory, caches, other sessions or caller HOME visible",
      "new PID namespace per request: every process of a request dies when it ends",
      ...(agent.cli
        ? [
            "the CLI's own install (its node_modules tree and node) read-only; its configuration only in the private HOME; only the named variables and the API key enter",
          ]
        : []),
      ...(network === "none" ? ["no network (only a private loopback)"] : []),
      ...(allowed
        ? [
            `network: only the model endpoint${allowed.length === 1 ? "" : "s"} ${allowed.join(", ") || "(none named)"}, relayed into a private loopback (no other host or local port, no DNS); the CLI's own web fetch and search tools off unless web=on`,
          ]
        : []),
      "verifier test runs: checkout and environment (read-only) only, no network, new PID namespace",
    ],
    not_enforced: [
      ...missing,
      ...(network === "on" ? ["network: the agent reaches every host and local port the machine reaches (--network on)"] : []),
    ],
    hardening,
  };
}
