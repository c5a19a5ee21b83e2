import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opencodeConfig } from "../../src/agents/opencode.js";
import { packageRoot } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer, type RecordedRequest } from "../../src/mock-model/server.js";
import type { StateItem, TaskState } from "../../src/rcm/state-record.js";
import { stateLimits } from "../../src/rcm/state-updater.js";
import { isolatedOpencodeEnv } from "../helpers/opencode-env.js";
import { allText, hasTools } from "../helpers/recorded-requests.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

const opencode = join(packageRoot, "node_modules", ".bin", "opencode");

/** RCM's state-writing prompt (state-writer.ts, stateSystem); routing prompts say "You route a new user request". */
const isStateUpdate = (r: RecordedRequest) => allText(r).includes("You keep the state memory of one task");

interface StateFileView {
  router: { assignments: Record<string, { task: string | null; method: string; confidence: number }> };
  states: Record<string, TaskState>;
  aux?: { calls: number; tokens: number; exhausted: boolean };
}

const sections = ["constraints", "completed", "pending", "files", "symbols", "uncertainties"] as const;
const itemsOf = (s: TaskState): StateItem[] => [...(s.goal ? [s.goal] : []), ...sections.flatMap((k) => s[k])];
/** Items the model wrote: those citing messages (the extractive updater's cite none), and its uncertainties. */
const modelItems = (s: TaskState) => itemsOf(s).filter((i) => i.refs !== undefined || i.text.startsWith("ALPHA-DOUBT"));

// The scripted model's answers to RCM's state-writing prompts, one per completed request; `{{tool}}` is the
// id of the message holding the write (OpenCode's message ids are known only in the call).
const good = {
  progress: [{ text: "alpha_value returns ALPHA in alpha.py", refs: ["{{tool}}"] }],
  pending: [],
  uncertainties: ["ALPHA-DOUBT-1", "ALPHA-DOUBT-2", "ALPHA-DOUBT-3", "ALPHA-DOUBT-4", "ALPHA-DOUBT-5"].map((text) => ({ text })),
};
const notJson = "Sure! {completed: [GARBLED-NOT-JSON alpha_value works], pending: none}";
const wrongShape =
  '{"progress": "GARBLED-NOT-A-LIST", "pending": {"GARBLED-OBJECT": 1}, "uncertainties": [3, null, {"text": "GARBLED-NESTED"}]}';

/**
 * State memory through OpenCode's own provider: real OpenCode 1.18.33 with the RCM plugin in mode
 * `rcm` and `auxModel: {host: true, stateUpdates: true}`, against the scripted server. Every request
 * names its workspace, so routing is decided without the auxiliary model: every auxiliary call is a
 * state update of the previous (completed) request, made in a tool-less child session with the
 * session's model. The first answer adds claims to the task's record on disk and is counted in the
 * usage file; a second answer that is not JSON and a third of the wrong shape add nothing, garble
 * nothing, and every run still succeeds.
 */
describe.skipIf(missingTool)(
  "RCM's state memory updated by the session's model through OpenCode's provider (real OpenCode, scripted model)",
  () => {
    const root = tempDir("switch-swe-host-state-");
    const project = join(root, "project");
    const stateDir = join(root, "rcm");
    let server: MockModelServer;
    const requests = [
      `Workspace: ${project}\nALPHA-1: create alpha.py with ALPHA = 1 and a function alpha_value returning it.`,
      `Workspace: ${project}\nALPHA-2: add a docstring to alpha_value in alpha.py.`,
      `Workspace: ${project}\nALPHA-3: add a return type hint to alpha_value in alpha.py.`,
      `Workspace: ${project}\nALPHA-4: add a module docstring to alpha.py.`,
    ];
    const runs: { code: number | null; stdout: string; stderr: string }[] = [];
    /** The session's state file after each run. */
    const snapshots: StateFileView[] = [];
    let session: string | null = null;
    const stateFile = () => join(stateDir, `${session}.json`);

    beforeAll(async () => {
      mkdirSync(project, { recursive: true });
      const script = parseScript({
        turns: [
          {
            match: "ALPHA-1",
            tool_calls: [
              {
                name: "write",
                arguments: { filePath: "{{workspace}}/alpha.py", content: "ALPHA = 1\n\n\ndef alpha_value():\n    return ALPHA\n" },
              },
            ],
          },
          { match: "ALPHA-1", text: "I created alpha.py." },
          {
            requests: "auxiliary",
            match_regex: "\\] user: ALPHA-1[\\s\\S]*\\[(?<tool>[^\\]]+)\\] tool write",
            usage: { prompt_tokens: 411, completion_tokens: 23 },
            text: JSON.stringify(good),
          },
          { requests: "auxiliary", match: "] user: ALPHA-2", usage: { prompt_tokens: 402, completion_tokens: 17 }, text: notJson },
          { requests: "auxiliary", match: "] user: ALPHA-3", usage: { prompt_tokens: 405, completion_tokens: 29 }, text: wrongShape },
        ],
        fallback: "Done.",
      });
      server = await startMockModel({ script, port: 0 });
      const config = opencodeConfig(
        { model: "mock/scripted", base_url: server.baseURL, context: 0, output: 1000, rcm: "rcm", threshold: 0.8 } as never,
        stateDir,
      );
      const plugin = (config.plugin as [string, Record<string, unknown>][])[0]!;
      plugin[1].auxModel = { host: true, stateUpdates: true };
      const env = isolatedOpencodeEnv(join(root, "home"), config);
      for (const text of requests) {
        const args = [
          "run",
          "--format",
          "json",
          "--dir",
          project,
          "-m",
          "mock/scripted",
          "--auto",
          ...(session ? ["--session", session] : ["--title", "host state test"]),
        ];
        const r = await runProcess(opencode, args, { timeoutMs: 300_000, env, input: text, cwd: root });
        runs.push({ code: r.code, stdout: r.stdout, stderr: r.stderr });
        session ??= /"sessionID":"(ses_[^"]+)"/.exec(r.stdout)?.[1] ?? null;
        if (session) snapshots.push(JSON.parse(readFileSync(stateFile(), "utf8")) as StateFileView);
      }
    }, 15 * 60_000);

    afterAll(async () => {
      await server?.close();
    });

    it("asks the session's model, without tools, once per completed request; all runs succeed with routing decided deterministically", () => {
      expect(
        runs.map((r) => r.code),
        runs.map((r) => r.stderr.slice(-2000)).join("\n"),
      ).toEqual([0, 0, 0, 0]);
      expect(snapshots).toHaveLength(4);
      const recorded = server.requests().filter((r) => r.path.endsWith("/chat/completions"));
      expect(recorded.filter((r) => allText(r).includes("You route a new user request"))).toHaveLength(0);
      const updates = recorded.filter(isStateUpdate);
      expect(updates.map((r) => /\] user: (ALPHA-\d)/.exec(allText(r))?.[1])).toEqual(["ALPHA-1", "ALPHA-2", "ALPHA-3"]);
      for (const r of updates) {
        expect(hasTools(r)).toBe(false);
        expect((r.body as { model?: string }).model).toBe("scripted");
      }
      // Each was answered by its scripted turn (the good answer, then the two malformed ones).
      expect(updates.map((r) => r.turn)).toEqual([2, 3, 4]);
      expect(server.unusedTurns()).toEqual([]);
      const methods = Object.values(snapshots[3]!.router.assignments).map((a) => a.method);
      expect(methods).toEqual(["first", "workspace", "workspace", "workspace"]);
    });

    it("records the model's items in the task's state file, citing checked messages, within the section bounds", () => {
      // After run 1 nothing is complete yet: no record items from the model.
      expect(Object.values(snapshots[0]!.states).flatMap(modelItems)).toEqual([]);
      const s = snapshots[1]!.states.t1!;
      expect(s.goal?.text).toContain("ALPHA-1");
      const source = s.goal!.source;
      // The progress item cites the message of the write, which says it: an observation; it replaced the
      // deterministic updater's item of the same request.
      const progress = s.completed.find((i) => i.text === good.progress[0]!.text)!;
      expect(progress).toMatchObject({ kind: "observation", request: 1 });
      expect(progress.refs).toEqual([progress.source]);
      expect(progress.source).toMatch(/^msg_/);
      expect(s.completed.map((i) => i.text)).not.toContain("request 1: changed alpha.py");
      // Sections stay bounded (newest kept) with the model's items too; uncertainties cite nothing: claims of the batch's request.
      expect(s.uncertainties).toEqual(
        good.uncertainties.slice(-stateLimits.uncertainties).map(({ text }) => ({ text, kind: "claim", source, request: 1 })),
      );
      for (const k of sections) expect(s[k].length).toBeLessThanOrEqual(stateLimits[k]);
      expect(modelItems(s)).toHaveLength(1 + stateLimits.uncertainties);
    });

    it("counts every state-update call as the session's model usage, with its purpose", () => {
      const usage = readFileSync(join(stateDir, `${session}.usage.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(usage).toHaveLength(3);
      expect(usage[0]).toMatchObject({ purpose: "state", model: "mock/scripted", input_tokens: 411, output_tokens: 23 });
      expect(usage.map((u) => [u.purpose, u.input_tokens, u.output_tokens])).toEqual([
        ["state", 411, 23],
        ["state", 402, 17],
        ["state", 405, 29],
      ]);
      expect(snapshots[3]!.aux).toEqual({ calls: 3, tokens: 411 + 23 + 402 + 17 + 405 + 29, exhausted: false });
    });

    it("leaves the record intact when the model answers malformed output: the earlier model items stay, nothing garbled is added", () => {
      const before = snapshots[1]!.states.t1!;
      for (const after of [snapshots[2]!.states.t1!, snapshots[3]!.states.t1!]) {
        expect(modelItems(after)).toEqual(modelItems(before));
        expect(after.goal).toEqual(before.goal);
        // Every earlier item is still there (a symbol named again is refreshed to its newer request).
        const texts = itemsOf(after).map((i) => i.text);
        for (const item of itemsOf(before)) expect(texts).toContain(item.text);
      }
      const last = snapshots[3]!.states.t1!;
      // The malformed answers' requests were folded deterministically all the same.
      expect(last.requests).toBe(3);
      expect(last.covered).toHaveLength(3);
      const raw = readFileSync(stateFile(), "utf8");
      expect(raw).not.toContain("GARBLED");
      for (const item of itemsOf(last)) expect(typeof item.text).toBe("string");
      // The model of the last run read the first answer's item's evidence, and nothing garbled: the write it
      // cites is still in view verbatim with its exchange (four short requests elide nothing), so the record, which shows only
      // items whose cited messages are out of view, has nothing to add and is not injected.
      const lastAgent = server
        .requests()
        .filter((r) => r.path.endsWith("/chat/completions") && hasTools(r) && allText(r).includes("ALPHA-4"))
        .at(-1)!;
      expect(allText(lastAgent)).toContain("I created alpha.py.");
      expect(allText(lastAgent)).not.toContain("<task-state");
      expect(allText(lastAgent)).not.toContain("GARBLED");
      expect(readFileSync(join(stateDir, "rcm.log"), "utf8")).not.toMatch(/^\S+ error /m);
    });
  },
);
