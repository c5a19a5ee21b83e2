import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerAgent } from "../../src/agents/registry.js";
import { confineModes, registerConfineBackend } from "../../src/confine/registry.js";
import { runDoctorChecks } from "../../src/doctor/probes.js";
import { runFiles } from "../../src/formats/run-layout.js";
import { runSessions } from "../../src/run/runner.js";
import { makeRunFixture } from "../run/fixture.js";
import { skipWithout } from "../helpers/tools.js";
import { fakeBackend } from "./fixtures/fake-backend.js";
import { wrappedAgent } from "./fixtures/wrapped-agent.js";

// The second case needs bwrap (an unconfinable agent's artifacts are verified under it): skipped with the reason where missing.
const missingTool = skipWithout(import.meta.url, "bwrap");

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

/** One base session of `agent` under `--sandbox mode`, verified; the run directory and the session id. */
async function oneSession(agent: string, mode: string) {
  const fx = makeRunFixture(1);
  const out = join(fx.root, "run");
  const outcome = await runSessions({
    out,
    resume: false,
    dataset: fx.datasetDir,
    sessions: fx.sessionsPath,
    agent,
    condition: "base",
    sandbox: mode,
    network: "on",
    concurrency: 1,
    keepWorkspaces: false,
    verify: true,
    progress: () => undefined,
  });
  const session = `${fx.sessions.pairs[0]!.id}.base`;
  expect(outcome.finished).toEqual([session]);
  const requests = fx.sessions.pairs[0]!.schedules.base.length;
  return { out, session, requests, verifyLog: readFileSync(join(out, "sessions", session, "verify.log"), "utf8") };
}

/** The agent's sandbox.txt lines of the session's attempts. */
function agentSaw(out: string, session: string): string {
  const attempts = join(out, "sessions", session, "attempts");
  return readdirSync(attempts)
    .map((a) => readFileSync(join(attempts, a, "agent", "sandbox.txt"), "utf8"))
    .join("");
}

describe("confinement backends and agents: one file and one registry line each", () => {
  it("a fake backend registered at run time confines a session of a fake agent: its wrappers start every request and test run, run.json names it", async () => {
    const log = join(makeRunFixture(1).root, "fake-backend.log");
    registerConfineBackend(fakeBackend("fake", log));
    registerAgent(wrappedAgent("fake-wrapped", { confinable: true, limits: false, harnessSide: false, submission: "checkout" }));
    expect(confineModes()).toEqual(["bwrap", "none", "fake"]);
    expect(() => registerConfineBackend(fakeBackend("bwrap", log))).toThrow(/registered already/);

    const { out, session, requests, verifyLog } = await oneSession("fake-wrapped", "fake");
    const config = readJson(runFiles.config(out)) as { sandbox: { mode: string; not_enforced: string[] } };
    expect(config.sandbox.mode).toBe("fake");
    expect(config.sandbox.not_enforced).toEqual(["a test double: agent fake-wrapped runs as the caller"]);
    expect(agentSaw(out, session)).toBe("sandboxed\n");

    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines.filter((l) => l.startsWith("agent-sandbox "))).toHaveLength(1);
    // Every request started through the backend's wrapper, in its workspace; the artifact holds what it wrote.
    const agentLines = lines.filter((l) => l.startsWith("agent "));
    expect(agentLines).toHaveLength(requests);
    expect(agentLines.every((l) => /\/w0[0-4]$/.test(l))).toBe(true);
    expect(readFileSync(join(out, "sessions", session, "artifact.patch"), "utf8")).toContain("+request 0");
    // The verifier's test runs too, with the backend's own words in the verify log.
    expect(lines.filter((l) => l.startsWith("test-run ")).length).toBeGreaterThan(0);
    expect(verifyLog).toContain("sandbox: fake (a test double: the test run runs as the caller)");
    expect(existsSync(runFiles.verdict(out, session))).toBe(true);
  });

  it.skipIf(missingTool)(
    "an agent registered confinable: false runs unconfined, run.json records mode none, and its artifact is still verified under bubblewrap",
    async () => {
      registerAgent(wrappedAgent("fake-unconfinable", { confinable: false, limits: false, harnessSide: false, submission: "checkout" }));
      const { out, session, verifyLog } = await oneSession("fake-unconfinable", "bwrap");
      const config = readJson(runFiles.config(out)) as { sandbox: { mode: string; verifier?: string; not_enforced: string[] } };
      expect(config.sandbox).toMatchObject({ mode: "none", verifier: "bwrap" });
      expect(config.sandbox.not_enforced[0]).toBe("agent fake-unconfinable cannot be started in the sandbox yet: it runs unconfined");
      expect(agentSaw(out, session)).toBe("unconfined\n");
      expect(verifyLog).toMatch(/^sandbox: bwrap \(the checkout and its environment only/m);
    },
  );

  it("doctor asks every confining backend, a registered one too: its mode is the check, its own problem and install command the detail", async () => {
    const log = join(makeRunFixture(1).root, "doctor-backend.log");
    registerConfineBackend(fakeBackend("fake-doctor", log));
    registerConfineBackend(fakeBackend("fake-broken", log, "the fake-broken sandbox cannot start here: no such device"));
    const checks = await runDoctorChecks(["fake-doctor", "fake-broken", "none"]);
    expect(checks).toEqual([
      {
        id: "fake-doctor",
        ok: true,
        detail: "fake-doctor can confine here",
        enables: "confinement of agents and test runs (run, verify --sandbox fake-doctor)",
        install: null,
      },
      {
        id: "fake-broken",
        ok: false,
        detail: "the fake-broken sandbox cannot start here: no such device",
        enables: "confinement of agents and test runs (run, verify --sandbox fake-broken)",
        install: "apt-get install fake-broken-sandbox",
      },
    ]);
    // `none` confines nothing: there is nothing for doctor to check.
    expect(checks.map((c) => c.id)).not.toContain("none");
  });
});
