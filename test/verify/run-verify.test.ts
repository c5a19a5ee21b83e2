import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { verifyRun } from "../../src/verify/run-verify.js";
import { verdictSchema } from "../../src/formats/verdict.js";
import { cli } from "../helpers/cli.js";
import { tempDir, writeCalcDataset, writeRunDir } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
let root: string;
let runDir: string;

beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
  root = writeCalcDataset(tempDir(), {
    tasks: [{ id: "fix-add" }, { id: "infra", command: "python3 -m pytest --no-such-option {tests}" }],
  });
  runDir = tempDir("switch-swe-run-");
  const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
  writeRunDir(runDir, root, { "fix-add.base": reference, "fix-add.switch": null, "infra.base": reference });
});
afterAll(() => {
  for (const d of [cache, root, runDir]) rmSync(d, { recursive: true, force: true });
});

const verdictOf = (s: string) => verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", s, "verdict.json"), "utf8")));

describe.skipIf(missingTool)("verifyRun", () => {
  it("writes a verdict per session, keeps unchanged ones, and redoes them with force", async () => {
    const events: string[] = [];
    const r = await verifyRun(runDir, {
      concurrency: 2,
      sessions: ["fix-add.base", "fix-add.switch"],
      onProgress: (e) => events.push(`${e.session}:${e.done}/${e.total}`),
    });
    expect(r.verified).toEqual(["fix-add.base", "fix-add.switch"]);
    expect(events).toHaveLength(2);
    expect(events.map((e) => e.split(":")[1]).sort()).toEqual(["1/2", "2/2"]);
    expect(verdictOf("fix-add.base").resolved).toBe(true);
    expect(verdictOf("fix-add.base").log).toBe("sessions/fix-add.base/verify.log");
    expect(readFileSync(join(runDir, "sessions", "fix-add.base", "verify.log"), "utf8")).toContain("short test summary info");
    const none = verdictOf("fix-add.switch");
    expect(none.apply_error).toBe("no artifact (session did not finalize)");
    expect(none.resolved).toBe(false);

    const mtime = statSync(join(runDir, "sessions", "fix-add.base", "verdict.json")).mtimeMs;
    const again = await verifyRun(runDir, { sessions: ["fix-add.base", "fix-add.switch"] });
    expect(again.reused).toEqual(["fix-add.base", "fix-add.switch"]);
    expect(statSync(join(runDir, "sessions", "fix-add.base", "verdict.json")).mtimeMs).toBe(mtime);

    // A changed artifact is verified again.
    writeFileSync(join(runDir, "sessions", "fix-add.switch", "artifact.patch"), "");
    const changed = await verifyRun(runDir, { sessions: ["fix-add.switch"] });
    expect(changed.verified).toEqual(["fix-add.switch"]);
    expect(verdictOf("fix-add.switch").apply_method).toBe("empty");

    const forced = await verifyRun(runDir, { sessions: ["fix-add.base"], force: true });
    expect(forced.verified).toEqual(["fix-add.base"]);
  });

  it("a test command that crashes with and without the artifact is an infrastructure fault, retried", async () => {
    await verifyRun(runDir, { sessions: ["infra.base"], maxInfraRetries: 1 });
    const v = verdictOf("infra.base");
    expect(v.infra_fault).toBe(true);
    expect(v.infra_reason).toMatch(/no JUnit report|reported no failing test/);
    expect(v.attempts).toBe(2);
    expect(v.resolved).toBe(false);
    // An infrastructure verdict is never kept: the next verify tries again.
    const again = await verifyRun(runDir, { sessions: ["infra.base"], maxInfraRetries: 0 });
    expect(again.verified).toEqual(["infra.base"]);
  });

  it("reports bad input as file: field: message", async () => {
    await expect(verifyRun(runDir, { sessions: ["nope.base"] })).rejects.toThrow(InputError);
    await expect(verifyRun(runDir, { sessions: ["nope.base"] })).rejects.toThrow(/sessions: nope\.base: no such session/);
    const bad = tempDir();
    writeFileSync(join(bad, "run.json"), "{}");
    await expect(verifyRun(bad)).rejects.toThrow(/run\.json: dataset\.path: required/);
    rmSync(bad, { recursive: true, force: true });
  });

  it("the CLI verifies, prints one line per session, and exits 1 when an infrastructure fault remains", () => {
    const env = { SWITCH_SWE_CACHE: cache };
    const ok = cli(["verify", runDir, "--session", "fix-add.base", "--session", "fix-add.switch"], { env });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/fix-add\.base\s+resolved\s+F2P 4\/4\s+P2P 1\/1/);
    expect(ok.stdout).toContain("2 session(s): 1 resolved, 1 unresolved, 0 infrastructure fault(s)");
    const infra = cli(["verify", runDir, "--session", "infra.base"], { env });
    expect(infra.code).toBe(1);
    expect(infra.stdout).toMatch(/infra\.base\s+INFRA/);
    const missing = cli(["verify", join(runDir, "nope")], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(": not a run directory (no such directory)");
    const info = cli(["cache", "info", "--json"], { env });
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout).repos.count).toBe(1);
    const clear = cli(["cache", "clear", "--repos"], { env });
    expect(clear.stdout).toContain("removed");
    // Three verifications (one retried as an infrastructure fault) in fresh checkouts: slow on a busy machine.
  }, 600_000);
});
