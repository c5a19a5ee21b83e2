// The known-answer experiment (docs/rcm.md, "The known-answer experiment"): sample session pairs run
// with a real CLI against the context-bound model (src/mock-model/context-bound.ts) in three arms,
// native, `router` and `rcm`, both conditions each, verified, then reported as the paper's Table 3 by
// `switch-swe compare --native RUN --rcm RUN...`. Claude Code goes through the model-endpoint proxy
// (`run --rcm off|router|rcm`: native is the proxy changing nothing); OpenCode through its plugin
// (`--agent-opt rcm=off|router|rcm`: native is OpenCode without the plugin).
// Run: npm run build && node bench/rcm-known-answer.mjs [--agent claude-code|opencode] [--pairs N] [--window TOKENS] [--out DIR]
// [--arms off,router,rcm-extractive,rcm-model] (Claude Code: `rcm` is the default state memory, model-written)
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadDataset } from "../dist/dataset/load.js";
import { startMockModel } from "../dist/mock-model/server.js";
import { knownAnswersSchema } from "../dist/mock-model/context-bound.js";
import { parseScript } from "../dist/mock-model/script.js";
import { subsetSessions } from "../dist/sessions/subset.js";
import { knownAnswers } from "./known-answers.mjs";

const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "2" },
    window: { type: "string", default: "12000" },
    out: { type: "string", default: "" },
    arms: { type: "string", default: "off,router,rcm" },
    agent: { type: "string", default: "claude-code" },
    claude: { type: "string", default: "" },
    opencode: { type: "string", default: "" },
    concurrency: { type: "string", default: "2" },
  },
});
const agent = values.agent;
if (!["claude-code", "opencode"].includes(agent)) throw new Error(`--agent: claude-code or opencode, not ${agent}`);
const root = resolve(import.meta.dirname, "..");
const cli = join(root, "dist", "cli", "main.js");
const sample = join(root, "datasets", "sample");
const out = values.out || join(root, "bench-out", agent === "opencode" ? "rcm-known-answer-opencode" : "rcm-known-answer");
mkdirSync(out, { recursive: true });
const claude =
  agent === "claude-code"
    ? realpathSync(
        values.claude || join(process.env.HOME, ".cache", "switch-swe-test-clis", "claude-code-2.1.332", "node_modules", ".bin", "claude"),
      )
    : null;
const sh = (args, opts = {}) => {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 4 * 3600_000, ...opts });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`switch-swe ${args.join(" ")}: ${r.status}\n${r.stderr}`);
  return r;
};

const load = [loadavg()[0].toFixed(2)];
const all = join(out, "sessions-all.json");
sh(["sessions", "build", sample, "--seed", "0", "--out", all]);
const file = JSON.parse(readFileSync(all, "utf8"));
// The pairs with the most focus returns first (each return is a chance to lose the focus's requirements).
const returns = (p) =>
  p.schedules.switch.filter((s, i, a) => s.task === p.focus && s.kind === "stage" && i > 0 && a[i - 1].task !== p.focus).length;
const pairs = [...file.pairs]
  .sort((a, b) => returns(b) - returns(a) || a.schedules.switch.length - b.schedules.switch.length || a.id.localeCompare(b.id))
  .slice(0, Number(values.pairs));
const sessionsPath = join(out, "sessions.json");
writeFileSync(
  sessionsPath,
  JSON.stringify(
    subsetSessions(
      file,
      all,
      pairs.map((p) => p.id),
    ),
    null,
    2,
  ),
);
const dataset = loadDataset(sample);
const tasks = [...new Set(pairs.flatMap((p) => Object.values(p.workspaces)))];
const table = knownAnswersSchema.parse(
  knownAnswers(dataset, tasks, {
    window: Number(values.window),
    shell: { name: agent === "opencode" ? "bash" : "Bash", command: "command", extra: { description: "write" } },
  }),
);
writeFileSync(join(out, "known-answers.json"), JSON.stringify(table));

/** `switch-swe run` without blocking this process, which serves the model. */
function runAsync(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.resume();
    child.on("close", (status) => done({ status, stderr }));
  });
}

/** Claude Code's arms: off, router, rcm (model-written state, the default), rcm-extractive, rcm-model. */
function rcmArgs(arm) {
  const [mode, state] = arm.split("-");
  return ["--rcm", mode, ...(state ? ["--rcm-state", state] : [])];
}

const runs = {};
for (const arm of values.arms.split(",")) {
  const server = await startMockModel({ script: parseScript([]), knownAnswers: table, recordFile: join(out, `requests-${arm}.jsonl`) });
  const runDir = join(out, `run-${arm}`);
  const t0 = Date.now();
  const agentArgs =
    agent === "opencode"
      ? [
          "--agent",
          "opencode",
          "--agent-opt",
          "model=mock/context-bound",
          "--agent-opt",
          `base_url=${server.origin}/v1`,
          "--agent-opt",
          `rcm=${arm}`,
          ...(values.opencode ? ["--agent-opt", `binary=${values.opencode}`] : []),
        ]
      : [
          "--agent",
          "claude-code",
          "--agent-opt",
          `bin=${claude}`,
          "--agent-opt",
          `base_url=${server.origin}`,
          "--agent-opt",
          "effort=default",
          ...rcmArgs(arm),
        ];
  const r = await runAsync([
    "run",
    "--dataset",
    sample,
    "--sessions",
    sessionsPath,
    ...agentArgs,
    "--label",
    `${agent} ${arm === "off" ? "native" : arm}`,
    "--submission",
    "checkout",
    "--request-timeout",
    "900",
    "--concurrency",
    values.concurrency,
    "--out",
    runDir,
    "--quiet",
  ]);
  await server.close();
  const compactions = server
    .requests()
    .filter((q) =>
      /create a detailed summary of the conversation|Output exactly the Markdown structure shown inside <template>/.test(
        JSON.stringify(q.body),
      ),
    ).length;
  runs[arm] = runDir;
  process.stdout.write(
    `${arm}: exit ${r.status}, ${((Date.now() - t0) / 60000).toFixed(1)} min, ${server.requests().length} model requests, ${compactions} compaction requests\n`,
  );
  if (r.status !== 0) process.stdout.write(r.stderr.slice(-2000));
}
load.push(loadavg()[0].toFixed(2));
/** One titled section of a report (from the title that starts with `title` up to the next title underlined with `=`). */
const section = (text, title) => {
  const rest = text.slice(text.search(new RegExp(`^${title.replace(/[()]/g, "\\$&")}.*\n=`, "m")));
  const next = rest.slice(title.length + 1).search(/\n\n[^\n]+\n=+\n/);
  return next < 0 ? rest : rest.slice(0, title.length + 1 + next + 1);
};
// The paper's Table 3 (base / switch of the native arm, +RCM of the others, gaps and CIs) from `compare`.
const withRcm = Object.keys(runs).filter((arm) => arm !== "off");
if (runs.off && withRcm.length > 0)
  process.stdout.write(
    section(sh(["compare", "--native", runs.off, ...withRcm.flatMap((arm) => ["--rcm", runs[arm]])]).stdout, "RCM (Table 3)"),
  );
else process.stdout.write(section(sh(["report", ...Object.values(runs)]).stdout, "Resolution"));
process.stdout.write(`pairs: ${pairs.map((p) => p.id).join(", ")}; window ${values.window}; load ${load.join(" -> ")}\n`);
