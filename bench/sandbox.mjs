// Sandbox cost: bubblewrap start-up per request (with --network on, and with --network model's relays) / per verification (median of 40 starts of /bin/true in the
// exact sandbox the harness builds, hardened; and the verifier's without the hardening, to see what it costs), the cgroup set-up per session or test run (group made, /bin/true started
// in it through the wrapper, group removed), the verifier's base-only checkout against a shared clone, and the wall time of a small sample run (oracle, verified) with
// --sandbox bwrap vs --sandbox none. Prints figures; asserts nothing. Usage: npm run bench:sandbox
// BENCH_SMALL=1: 5 starts, 2 checkouts, one session per mode (seconds; the figures then say little).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, loadavg, cpus } from "node:os";
import { join } from "node:path";
import { bwrapArgs, bwrapCommand, hardeningSummary } from "../dist/confine/bubblewrap.js";
import { sessionSandbox } from "../dist/confine/session-sandbox.js";
import { endpointsOf, openEgressGate } from "../dist/confine/egress.js";
import { createCgroup, describeLimits } from "../dist/confine/cgroups.js";
import { defaultLimits } from "../dist/confine/limits.js";
import { loadDataset } from "../dist/dataset/load.js";
import { baseOnlyCheckoutAt, checkoutAt, materializeRepo } from "../dist/dataset/repo-cache.js";

const SMALL = process.env.BENCH_SMALL === "1";
const STARTS = SMALL ? 5 : 40;
const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-sandbox-"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

/** Median start-up of each sandbox, interleaved (one start of each in turn) so that a change in load hits all alike. */
function startups(variants) {
  const xs = variants.map(() => []);
  const bare = [];
  for (let i = 0; i < STARTS; i++) {
    variants.forEach(([, makeCommand], j) => {
      const c = makeCommand();
      xs[j].push(time(() => execFileSync(c.command, c.args, { stdio: "ignore" })));
    });
    bare.push(time(() => execFileSync("/bin/true", [], { stdio: "ignore" })));
  }
  variants.forEach(([label], j) =>
    console.log(
      `${label}: median ${median(xs[j]).toFixed(1)} ms (plain /bin/true spawn: ${median(bare).toFixed(1)} ms; sandbox overhead ${(median(xs[j]) - median(bare)).toFixed(1)} ms)`,
    ),
  );
}

const ws = Object.fromEntries(["w00", "w01", "w02", "w03", "w04"].map((w) => [w, mkdtempSync(join(root, `${w}-`))]));
const sb = sessionSandbox({ repo: "demo", workspaces: ws, stateDir: join(root, "state"), homeDir: join(root, "home"), network: true });
// --network model (the default): the same sandbox in a network namespace of its own, with socat relays to the
// model endpoint (loopback) and to the allow-list proxy (a remote endpoint), each waited for before the command.
const gateLocal = await openEgressGate(endpointsOf(["http://127.0.0.1:4000/v1"]));
const gateBoth = await openEgressGate(endpointsOf(["http://127.0.0.1:4000/v1", "https://api.anthropic.com"]));
const sbOf = (egress) =>
  sessionSandbox({ repo: "demo", workspaces: ws, stateDir: join(root, "state"), homeDir: join(root, "home"), network: false, egress });
const sbLocal = sbOf(gateLocal);
const sbBoth = sbOf(gateBoth);
const verifierSpec = { binds: [{ src: ws.w00, rw: true }], network: false, chdir: ws.w00 };
console.log(`hardening applied: ${hardeningSummary()}`);
startups([
  ["agent request sandbox start-up (--network on)", () => sb.wrap(["/bin/true"], "/workspace/demo/w00", [])],
  [
    "agent request sandbox start-up, --network model (one loopback endpoint: one socat relay)",
    () => sbLocal.wrap(["/bin/true"], "/workspace/demo/w00", []),
  ],
  [
    "agent request sandbox start-up, --network model (loopback endpoint + remote one through the proxy: two relays)",
    () => sbBoth.wrap(["/bin/true"], "/workspace/demo/w00", []),
  ],
  ["verifier test-run sandbox start-up", () => bwrapCommand(verifierSpec, ["/bin/true"])],
  // The same sandbox without user namespace, capability drop and syscall filter (as before issue 32): what they cost.
  ["verifier test-run sandbox start-up, unhardened", () => ({ command: "bwrap", args: bwrapArgs(verifierSpec, ["/bin/true"]) })],
]);

await gateLocal.close();
await gateBoth.close();

const timeAsync = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const cg = [];
let record = null;
for (let i = 0; i < STARTS; i++) {
  cg.push(
    await timeAsync(async () => {
      const g = createCgroup(defaultLimits);
      record = g.record;
      const w = g.wrap("/bin/true", []);
      execFileSync(w.command, w.args, { stdio: "ignore" });
      await g.remove();
    }),
  );
}
console.log(`cgroup set-up (make, start /bin/true in it, remove): median ${median(cg).toFixed(1)} ms; ${describeLimits(record)}`);

process.env.SWITCH_SWE_CACHE = join(root, "cache");
const sample = loadDataset(join(process.cwd(), "datasets", "sample"));
const repo = await materializeRepo(sample, "textflow");
for (const [label, fn] of [
  ["shared clone (alternates into the cache)", checkoutAt],
  ["base-only checkout (depth 1, no alternates)", baseOnlyCheckoutAt],
]) {
  const xs = [];
  for (let i = 0; i < (SMALL ? 2 : 10); i++) xs.push(await timeAsync(() => fn(repo, repo.head, join(root, `co-${label.length}-${i}`))));
  console.log(`verifier checkout, ${label}: median ${median(xs).toFixed(1)} ms (textflow, sample dataset)`);
}

const cli = join(process.cwd(), "dist", "cli", "main.js");
const dataset = join(process.cwd(), "datasets", "sample");
const sessions = join(root, "sessions.json");
execFileSync(process.execPath, [cli, "sessions", "build", dataset, "--seed", "0", "--out", sessions]);
const pairs = JSON.parse(readFileSync(sessions, "utf8"))
  .pairs.slice(0, SMALL ? 1 : 2)
  .map((p) => p.focus);
const args = SMALL ? ["--session", `${pairs[0]}.base`] : pairs.flatMap((f) => ["--session", `${f}.base`, "--session", `${f}.switch`]);
const env = { ...process.env, SWITCH_SWE_CACHE: join(root, "cache") };
for (const mode of SMALL ? ["none", "bwrap"] : ["none", "bwrap", "none", "bwrap"]) {
  const out = join(root, `run-${mode}-${Math.random().toString(36).slice(2)}`);
  const t = time(() => {
    const r = spawnSync(
      process.execPath,
      [cli, "run", "--dataset", dataset, "--sessions", sessions, "--agent", "oracle", "--out", out, "--quiet", "--sandbox", mode, ...args],
      { env, encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(r.stderr);
  });
  console.log(`run of ${args.length / 2} sessions (oracle, verified) --sandbox ${mode}: ${(t / 1000).toFixed(1)} s`);
}
console.log(
  `machine: ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
rmSync(root, { recursive: true, force: true });
