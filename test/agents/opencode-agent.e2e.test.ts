import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { opencodeAgent } from "../../src/agents/opencode.js";
import type { AgentContext, AgentResult } from "../../src/agents/types.js";
import { parseScript, type ScriptInput } from "../../src/mock-model/script.js";
import { startMockModel } from "../../src/mock-model/server.js";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { running } from "../run/fixture.js";
import { allTexts, lastUserText, userTexts } from "../rcm/helpers/bodies.js";

// Real OpenCode end to end (its options, config and event parsing are tested in opencode-agent.test.ts):
// an end-to-end file, so that `npm run test:fast` leaves it out as it does every real agent CLI.

/** A session root with two workspaces, as the harness lays them out (siblings under one directory). */
function conversationContext(root: string): AgentContext {
  const workspaces = {
    w00: join(root, "work", "w00"),
    w01: join(root, "work", "w01"),
    w02: join(root, "work", "w02"),
    w03: join(root, "work", "w03"),
    w04: join(root, "work", "w04"),
  };
  for (const p of Object.values(workspaces)) mkdirSync(p, { recursive: true });
  return {
    session: "demo.switch",
    conversationId: "c1",
    stateDir: join(root, "work", "agent"),
    logDir: join(root, "logs"),
    workspaces,
  } as unknown as AgentContext;
}

const msg = (ws: string, text: string) => `Repository: demo\nWorkspace: ${ws}\n\n${text}`;

async function converse(
  mode: "off" | "router",
  script: ScriptInput,
  messages: (ctx: AgentContext) => { ws: keyof AgentContext["workspaces"]; text: string; timeoutMs?: number }[],
) {
  const root = tempDir(`switch-swe-oc-${mode}-`);
  const server = await startMockModel({ script: parseScript(script) });
  try {
    const opts = opencodeAgent.parse({
      model: "mock/scripted",
      base_url: server.baseURL,
      rcm: mode,
      ...(mode === "router" ? { aux_model: `${server.baseURL}|aux` } : {}),
    });
    const ctx = conversationContext(root);
    const conv = await opencodeAgent.create(opts).startConversation(ctx);
    const results: { result: AgentResult; events: AgentEvent[] }[] = [];
    for (const [index, m] of messages(ctx).entries()) {
      const events: AgentEvent[] = [];
      const ws = ctx.workspaces[m.ws];
      const result = await conv.send(
        {
          index,
          message: m.ws === "w04" ? m.text : msg(ws, m.text),
          workspace: m.ws,
          workspacePath: ws,
          continuation: false,
          turn: index,
          timeoutMs: m.timeoutMs ?? 240_000,
          signal: new AbortController().signal,
        },
        (e) => events.push(e),
      );
      results.push({ result, events });
    }
    await conv.close();
    return {
      ctx,
      results,
      bodies: server
        .requests()
        .filter((r) => r.path.endsWith("/chat/completions"))
        .map((r) => r.body),
    };
  } finally {
    await server.close();
  }
}

const twoTasks: ScriptInput = [
  { match: "ALPHA-1", tool_calls: [{ name: "write", arguments: { filePath: "{{workspace}}/alpha.py", content: "A = 1\n" } }] },
  { match: "ALPHA-1", text: "I added alpha.py." },
  { match: "BETA-1", tool_calls: [{ name: "write", arguments: { filePath: "{{workspace}}/beta.py", content: "B = 1\n" } }] },
  { match: "BETA-1", text: "I added beta.py." },
  {
    match: "ALPHA-2",
    tool_calls: [{ name: "edit", arguments: { filePath: "{{workspace}}/alpha.py", oldString: "A = 1", newString: "A = 2" } }],
  },
  { match: "ALPHA-2", text: "A is 2 now." },
];
const twoTaskMessages = () => [
  { ws: "w00" as const, text: "ALPHA-1: create alpha.py with A = 1." },
  { ws: "w01" as const, text: "BETA-1: create beta.py with B = 1." },
  { ws: "w00" as const, text: "ALPHA-2: change A to 2 in alpha.py." },
];

describe("opencode agent with real OpenCode 1.18.33", () => {
  it("keeps one OpenCode session across workspaces; mode off sends the whole history, mode router only the task's, with RCM's own calls counted", async () => {
    const [off, router] = await Promise.all([
      converse("off", twoTasks, twoTaskMessages),
      converse(
        "router",
        [...twoTasks, { requests: "auxiliary", text: '{"task": "t1", "confidence": 0.9}' }, { match: "go on", text: "Nothing left." }],
        () => [
          ...twoTaskMessages(),
          // No workspace line and nothing to route by: the router asks the auxiliary model.
          { ws: "w04" as const, text: "ok, go on" },
        ],
      ),
    ]);
    for (const run of [off, router]) {
      expect(run.results.map((r) => r.result.outcome)).toEqual(run.results.map(() => "yielded"));
      expect(readFileSync(join(run.ctx.workspaces.w00, "alpha.py"), "utf8")).toBe("A = 2\n");
      expect(readFileSync(join(run.ctx.workspaces.w01, "beta.py"), "utf8")).toBe("B = 1\n");
      const first = run.results[0]!.events;
      expect(first.filter((e) => e.kind === "model_call")).toHaveLength(2);
      expect(first).toContainEqual(
        expect.objectContaining({ kind: "tool_call", name: "write", paths: [join(run.ctx.workspaces.w00, "alpha.py")] }),
      );
      // The explicit session title means no title-generation call: every recorded call is an agent step or RCM's.
      expect(run.bodies.every((b) => (b as { tools?: unknown[] }).tools?.length || allTexts(b).includes("route a new user request"))).toBe(
        true,
      );
    }
    // Agent steps (they offer tools) of the resumed request; RCM's routing calls quote tasks too.
    const resumed = (run: typeof off) =>
      run.bodies.filter((b) => (b as { tools?: unknown[] }).tools?.length && lastUserText(b).includes("ALPHA-2"));
    expect(resumed(off).length).toBeGreaterThan(0);
    for (const b of resumed(off)) {
      const all = allTexts(b);
      for (const t of ["ALPHA-1", "I added alpha.py.", "BETA-1", "I added beta.py.", "Wrote file successfully."]) expect(all).toContain(t);
    }
    for (const b of resumed(router)) {
      expect(userTexts(b).join("\n")).toContain("ALPHA-1: create alpha.py with A = 1.");
      expect(allTexts(b)).not.toContain("BETA-1");
      expect(allTexts(b)).not.toContain("<task-state");
    }
    // The fourth request was routed by the auxiliary model; its usage is in that request's events.
    const aux = router.results[3]!.events.filter((e) => e.kind === "model_call" && e.auxiliary);
    expect(aux).toEqual([expect.objectContaining({ kind: "model_call", model: "aux", auxiliary: true })]);
    const goOn = router.bodies.filter((b) => lastUserText(b) === "ok, go on" && (b as { tools?: unknown[] }).tools?.length);
    expect(goOn.length).toBeGreaterThan(0);
    for (const b of goOn) expect(allTexts(b)).not.toContain("BETA-1");
    expect(existsSync(join(router.ctx.logDir, "rcm-state.json"))).toBe(true);
  }, 600_000);

  it("enforces the request deadline by killing OpenCode's process group", async () => {
    const run = await converse("off", [{ match: "SLOW", delay_ms: 600_000, text: "never" }], () => [
      { ws: "w00" as const, text: "SLOW: take your time.", timeoutMs: 45_000 },
    ]);
    expect(run.results[0]!.result.outcome).toBe("timeout");
    const pid = Number(readFileSync(join(run.ctx.stateDir, "pid"), "utf8"));
    expect(running(pid)).toBe(false);
  }, 300_000);
});
