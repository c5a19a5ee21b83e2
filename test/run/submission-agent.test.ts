import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";

/**
 * A scripted `command` agent under `run --submission agent`. Stage requests: it appends the stage's line to
 * the files the request names and, like many agents, also edits one shared line (VALUE in pkg/c/two.py) with
 * the workspace's own name. Finalization: it submits as its mode says.
 *   correct  the focus workspace's diff
 *   all      the diffs of all five workspaces (the paper's E.3 failure: the shared line is changed five ways)
 *   fenced   the focus diff in a markdown fence after a sentence, with CRLF line ends
 *   none     nothing
 */
const agentSource = `
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { basename, dirname, join } from "node:path";
const mode = process.argv[2];
const msg = readFileSync(0, "utf8");
const ws = process.env.SWITCH_SWE_WORKSPACE;
const git = (cwd, ...a) => execFileSync("git", a, { cwd, encoding: "utf8" });
const diff = (cwd) => { git(cwd, "add", "-A"); return git(cwd, "diff", "--cached", "HEAD"); };
if (msg.includes("final.patch")) {
  let text = null;
  if (mode === "correct") text = diff(ws);
  if (mode === "all") text = readdirSync(dirname(ws)).filter((w) => /^w0\\d$/.test(w)).sort().map((w) => diff(join(dirname(ws), w))).join("");
  if (mode === "fenced") text = ("Here is the final patch:\\n\\n\`\`\`diff\\n" + diff(ws) + "\`\`\`\\n").replace(/\\n/g, "\\r\\n");
  if (text !== null) writeFileSync(join(ws, "final.patch"), text);
  console.log(text === null ? "done" : "submitted");
} else {
  const m = /add (STAGE_\\d+) to (.+)\\.$/m.exec(msg);
  for (const f of m[2].split(", ")) appendFileSync(join(ws, f), m[1] + ' = "' + basename(ws) + '"\\n');
  const shared = join(ws, "pkg/c/two.py");
  writeFileSync(shared, readFileSync(shared, "utf8").replace(/^VALUE = .*$/m, 'VALUE = "' + basename(ws) + '"'));
  console.log("done");
}
`;

let fx: RunFixture;
let agent: string;
let pair: string;

beforeAll(() => {
  fx = makeRunFixture(1);
  pair = fx.sessions.pairs[0]!.id;
  agent = join(fx.root, "submitting-agent.mjs");
  writeFileSync(agent, agentSource);
});

interface SessionOutcome {
  resolved: boolean;
  applied: boolean;
  applyError: string | undefined;
  submission: { mode: string; status?: string; detail?: string; normalized?: string[] };
  category: string | null;
}

/** Runs one pair with the agent in `mode` and verifies it; returns each session's verdict, session.json and report category. */
function runMode(mode: string, extra: string[] = []): Record<"base" | "switch", SessionOutcome> & { out: string } {
  const out = join(fx.root, `run-${mode}`);
  const env = { SWITCH_SWE_CACHE: fx.cache };
  const r = cli(
    [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--out",
      out,
      "--agent",
      "command",
      "--agent-opt",
      `command=${process.execPath} ${agent} ${mode}`,
      "--submission",
      "agent",
      "--sandbox",
      "none",
      "--quiet",
      ...extra,
    ],
    { env },
  );
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).submission).toBe("agent");
  const rep = cli(["report", out, "--format", "json"], { env });
  expect(rep.code, rep.stderr).toBe(0);
  const report = JSON.parse(rep.stdout) as {
    configs: Array<{ submission: string; sessions: Array<{ id: string; failure_category: string | null }> }>;
  };
  expect(report.configs[0]!.submission).toBe("agent");
  const one = (c: "base" | "switch"): SessionOutcome => {
    const dir = join(out, "sessions", `${pair}.${c}`);
    const v = JSON.parse(readFileSync(join(dir, "verdict.json"), "utf8")) as { resolved: boolean; applied: boolean; apply_error?: string };
    const s = JSON.parse(readFileSync(join(dir, "session.json"), "utf8")) as { submission: SessionOutcome["submission"] };
    const entry = report.configs[0]!.sessions.find((e) => e.id === `${pair}.${c}`);
    return {
      resolved: v.resolved,
      applied: v.applied,
      applyError: v.apply_error,
      submission: s.submission,
      category: entry?.failure_category ?? null,
    };
  };
  return { base: one("base"), switch: one("switch"), out };
}

const file = (out: string, c: string, name: string) => readFileSync(join(out, "sessions", `${pair}.${c}`, name), "utf8");

describe("run --submission agent: the agent's submitted patch is the artifact", () => {
  it("(a) a correct patch resolves, and it is the checkout's diff byte for byte", () => {
    const r = runMode("correct");
    for (const c of ["base", "switch"] as const) {
      expect(r[c].resolved, c).toBe(true);
      expect(r[c].submission).toEqual({ mode: "agent", status: "submitted", normalized: [] });
      expect(file(r.out, c, "artifact.patch")).toBe(file(r.out, c, "checkout.patch"));
    }
  }, 300_000);

  it("(b) the diffs of all five workspaces: the switched session's patch does not apply (unresolved, a submission failure)", () => {
    const r = runMode("all");
    // Uninterrupted, the other four workspaces were never touched: their diffs are empty.
    expect(r.base.resolved).toBe(true);
    expect(r.switch.resolved).toBe(false);
    expect(r.switch.applied).toBe(false);
    expect(r.switch.category).toBe("submission");
    // The focus checkout itself was right: under --submission checkout this session resolves.
    expect(file(r.out, "switch", "checkout.patch")).not.toBe(file(r.out, "switch", "artifact.patch"));
  }, 300_000);

  it("(c) a fenced patch with CRLF line ends resolves after normalization, unchanged as a patch", () => {
    const r = runMode("fenced");
    for (const c of ["base", "switch"] as const) {
      expect(r[c].resolved, c).toBe(true);
      expect(r[c].submission.normalized).toEqual(["crlf", "fence"]);
      expect(file(r.out, c, "artifact.patch")).toBe(file(r.out, c, "checkout.patch"));
    }
  }, 300_000);

  it("(d) no submission: unresolved, a submission failure, although the checkout holds the work", () => {
    const r = runMode("none");
    for (const c of ["base", "switch"] as const) {
      expect(r[c].resolved, c).toBe(false);
      expect(r[c].submission).toMatchObject({ mode: "agent", status: "missing", detail: "no final.patch in the workspace" });
      expect(r[c].applyError).toBe("no submission: no final.patch in the workspace");
      expect(r[c].category).toBe("submission");
      expect(file(r.out, c, "checkout.patch")).toContain("STAGE_1");
    }
  }, 300_000);

  it("--submission checkout: the same agent that submits nothing is scored by its checkout", () => {
    const out = join(fx.root, "run-checkout");
    const env = { SWITCH_SWE_CACHE: fx.cache };
    const r = cli(
      [
        "run",
        "--dataset",
        fx.datasetDir,
        "--sessions",
        fx.sessionsPath,
        "--out",
        out,
        "--agent",
        "command",
        "--agent-opt",
        `command=${process.execPath} ${agent} none`,
        "--sandbox",
        "none",
        "--quiet",
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).submission).toBe("checkout");
    for (const c of ["base", "switch"]) {
      expect(JSON.parse(file(out, c, "verdict.json")).resolved, c).toBe(true);
      expect(JSON.parse(file(out, c, "session.json")).submission).toEqual({ mode: "checkout" });
    }
  }, 300_000);
});
