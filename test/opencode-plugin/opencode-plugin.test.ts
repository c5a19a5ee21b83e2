import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import plugin from "../../src/opencode-plugin/index.js";
import { installLocalPlugin, localPluginSource } from "../../src/opencode-plugin/local-file.js";
import { applyPlan, historyView, type HostMessage } from "../../src/opencode-plugin/messages.js";
import { createRcmServer } from "../../src/opencode-plugin/plugin.js";
import { RcmEngine } from "../../src/rcm/engine.js";
import { parseRcmOptions, resolveStateDir } from "../../src/rcm/options.js";
import { loadStateFile, stateFiles } from "../../src/rcm/store.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { Conversation } from "../rcm/helpers/opencode-messages.js";

const logged: unknown[] = [];
const input = (directory: string) =>
  ({ directory, worktree: directory, client: { app: { log: async (x: unknown) => void logged.push(x) } } }) as unknown as PluginInput;

async function hooks(options: Record<string, unknown>, dir = tempDir()): Promise<{ h: Hooks; dir: string }> {
  return { h: await createRcmServer()(input(dir), { stateDir: join(dir, "state"), ...options }), dir };
}

function header(ws: string, text: string) {
  return `Repository: demo\nWorkspace: ${ws}\n\n${text}`;
}

/** Two tasks in two workspaces, then a return to the first. */
function interleaved(): { c: Conversation; texts: string[] } {
  const c = new Conversation();
  const texts = [
    header("/r/w00", "ALPHA-1: create alpha.py."),
    header("/r/w01", "BETA-1: create beta.py."),
    header("/r/w00", "ALPHA-2: change A to 2."),
  ];
  c.user(texts[0]!);
  c.assistant([
    { tool: "write", input: { filePath: "/r/w00/alpha.py", content: "A = 1\n".repeat(80) }, output: "Wrote file successfully." },
  ]);
  c.assistant([{ text: "I added alpha.py." }]);
  c.user(texts[1]!);
  c.assistant([
    { tool: "write", input: { filePath: "/r/w01/beta.py", content: "B = 1" }, output: "Wrote file successfully." },
    { text: "Added beta.py." },
  ]);
  c.user(texts[2]!);
  return { c, texts };
}

const textsOf = (messages: HostMessage[]) => messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));

describe("OpenCode messages", () => {
  it("groups user requests with their answers; synthetic user messages belong to the turn", () => {
    const c = new Conversation();
    c.assistant([{ text: "summary of earlier work" }]);
    c.user("first request");
    c.assistant([{ tool: "edit", input: { filePath: "/w/a.py" }, error: "oldString not found" }, { text: "Retrying." }]);
    c.user("Continue if you have next steps", { synthetic: true });
    c.assistant([
      { tool: "apply_patch", input: { patchText: "*** Begin Patch\n*** Update File: /w/b.py\n@@\n-x\n+y\n*** End Patch" }, output: "ok" },
    ]);
    c.user("second request");
    const view = historyView(c.messages);
    expect(view.groups.map((g) => g.userText)).toEqual(["first request", "second request"]);
    expect(view.spans).toEqual([
      { user: 1, rest: [2, 3, 4] },
      { user: 5, rest: [] },
    ]);
    expect(view.groups[0]!.actions).toEqual([
      expect.objectContaining({ kind: "tool", tool: "edit", status: "error", text: "oldString not found", paths: ["/w/a.py"] }),
      expect.objectContaining({ kind: "assistant", text: "Retrying." }),
      expect.objectContaining({ kind: "tool", tool: "apply_patch", status: "ok", paths: ["/w/b.py"] }),
    ]);
  });

  it("applies a plan in place: the same array, other tasks spliced out, the record before the current request", () => {
    const { c, texts } = interleaved();
    const messages = c.snapshot();
    const same = messages;
    const e = new RcmEngine(parseRcmOptions({ mode: "rcm", keepRecent: 0 }));
    // Route the turns one by one, as the hook sees them.
    e.prepare(historyView(messages.slice(0, 1)).groups);
    e.prepare(historyView(messages.slice(0, 4)).groups);
    const view = historyView(messages);
    const plan = e.prepare(view.groups);
    applyPlan(messages, view, plan);
    expect(messages).toBe(same);
    const all = textsOf(messages);
    expect(all.some((t) => t.includes("BETA-1"))).toBe(false);
    expect(all.filter((t) => t === texts[0] || t === texts[2])).toHaveLength(2);
    const last = messages.at(-1)!;
    expect(last.parts.map((p) => p.type === "text" && p.text.startsWith("<task-state"))).toEqual([true, false]);
    expect(last.parts[0]).toMatchObject({ synthetic: true, metadata: { switchSweRcm: { part: "record" } } });
    // Read again (a later step of the same turn), the record is not mistaken for the request.
    expect(historyView(messages).groups.at(-1)!.userText).toBe(texts[2]);
  });
});

describe("the RCM OpenCode plugin", () => {
  it("exports the OpenCode 1.18.33 module shape {id, server}", () => {
    expect(plugin.id).toBe("switch-swe-rcm");
    expect(typeof plugin.server).toBe("function");
  });

  it("mode rcm: routes each turn, edits output.messages in place and persists state across restarts", async () => {
    const { h, dir } = await hooks({ mode: "rcm", keepRecent: 0 });
    const { c, texts } = interleaved();
    const transform = h["experimental.chat.messages.transform"]!;
    const chat = h["chat.message"]!;
    // Turn by turn: chat.message for the new request, then the transform before each model step.
    for (const upTo of [1, 4, 6]) {
      const m = c.messages[upTo - 1]!;
      await chat({ sessionID: c.sessionID, messageID: m.info.id }, { message: m.info as never, parts: m.parts });
      const output = { messages: c.snapshot().slice(0, upTo) };
      await transform({}, output);
      if (upTo === 6) {
        const all = textsOf(output.messages);
        expect(all.some((t) => t.includes("BETA-1"))).toBe(false);
        expect(all).toContain(texts[0]);
        expect(all.some((t) => t.startsWith("<task-state"))).toBe(true);
      }
    }
    const saved = loadStateFile(join(dir, "state"), c.sessionID)!;
    expect(saved.router.tasks.map((t) => [t.id, t.workspace])).toEqual([
      ["t1", "/r/w00"],
      ["t2", "/r/w01"],
    ]);
    expect(saved.last).toMatchObject({ active: "t1", filtered: true, dropped: 1 });
    expect(saved.states.t1!.covered).toHaveLength(1);

    // A restarted OpenCode (a new plugin instance) resumes with the saved assignments.
    const { h: again } = await hooks({ mode: "rcm" }, dir);
    const output = { messages: c.snapshot() };
    await again["experimental.chat.messages.transform"]!({}, output);
    expect(textsOf(output.messages).some((t) => t.includes("BETA-1"))).toBe(false);
    expect(loadStateFile(join(dir, "state"), c.sessionID)!.router.assignments).toEqual(saved.router.assignments);

    // Compaction keeps every task, suspended ones included.
    const compaction = { context: [] as string[] };
    await again["experimental.session.compacting"]!({ sessionID: c.sessionID }, compaction);
    expect(compaction.context[0]).toContain("including tasks that are suspended");
    expect(compaction.context.filter((x) => x.startsWith("<task-state"))).toHaveLength(2);

    await again.event!({ event: { type: "session.deleted", properties: { info: { id: c.sessionID } } } as never });
    expect(existsSync(stateFiles.state(join(dir, "state"), c.sessionID))).toBe(false);
  });

  it("mode router: filters without a state record; mode off: no hooks at all", async () => {
    const { h } = await hooks({ mode: "router" });
    const { c } = interleaved();
    for (const upTo of [1, 4, 6]) {
      const output = { messages: c.snapshot().slice(0, upTo) };
      await h["experimental.chat.messages.transform"]!({}, output);
      if (upTo === 6) {
        expect(textsOf(output.messages).some((t) => t.includes("BETA-1"))).toBe(false);
        expect(textsOf(output.messages).some((t) => t.startsWith("<task-state"))).toBe(false);
      }
    }
    expect(await createRcmServer()(input(tempDir()), { mode: "off" })).toEqual({});
  });

  it("a hook that fails logs the error and leaves the history unmodified", async () => {
    const { h, dir } = await hooks({ mode: "rcm" });
    const { c } = interleaved();
    const broken = c.snapshot();
    // A part without text where a text part is expected makes the grouping throw.
    (broken[3]!.parts[0] as { text?: unknown }).text = undefined;
    (broken[3]!.parts[0] as { type: string }).type = "text";
    Object.defineProperty(broken[5]!, "parts", {
      get: () => {
        throw new Error("boom");
      },
    });
    const before = broken.map((m) => m.info.id);
    await expect(h["experimental.chat.messages.transform"]!({}, { messages: broken })).resolves.toBeUndefined();
    expect(broken.map((m) => m.info.id)).toEqual(before);
    expect(readFileSync(stateFiles.log(join(dir, "state")), "utf8")).toMatch(/error messages\.transform: history left unmodified: boom/);
    // A damaged state file: the session starts over instead of failing.
    const { h: h2, dir: dir2 } = await hooks({ mode: "rcm" });
    const { writeFileSync, mkdirSync } = await import("node:fs");
    mkdirSync(join(dir2, "state"), { recursive: true });
    writeFileSync(stateFiles.state(join(dir2, "state"), c.sessionID), "{not json");
    const output = { messages: c.snapshot() };
    await h2["experimental.chat.messages.transform"]!({}, output);
    expect(readFileSync(stateFiles.log(join(dir2, "state")), "utf8")).toMatch(/starting with empty state/);
  });

  it("rejects bad options with a readable message", async () => {
    await expect(createRcmServer()(input(tempDir()), { mode: "everything" })).rejects.toThrow(/switch-swe RCM options: mode/);
  });

  it("puts state outside the project by default", () => {
    expect(resolveStateDir(undefined, "/proj", { XDG_STATE_HOME: "/x/state", HOME: "/h" })).toBe("/x/state/switch-swe/rcm");
    expect(resolveStateDir(undefined, "/proj", { HOME: "/h" })).toBe("/h/.local/state/switch-swe/rcm");
    expect(resolveStateDir(".rcm", "/proj", {})).toBe("/proj/.rcm");
  });

  it("writes a local plugin file that loads RCM from this installation", async () => {
    const src = localPluginSource({ mode: "router", threshold: 0.9 }, "file:///x/plugin.js");
    expect(src).toContain('import { createRcmServer } from "file:///x/plugin.js";');
    expect(src).toContain('createRcmServer({"mode":"router","threshold":0.9})');
    expect(() => localPluginSource({ mode: "bogus" as never })).toThrow();
    const dir = tempDir();
    const file = installLocalPlugin(dir, { mode: "rcm" });
    expect(file).toBe(join(dir, ".opencode", "plugin", "switch-swe-rcm.js"));
    // Under vitest the module resolves to src/…/plugin.js; the built file is what OpenCode loads.
    expect(readFileSync(file, "utf8")).toContain("/opencode-plugin/plugin.js");
    const built = join(packageRoot, "dist", "opencode-plugin", "local-file.js");
    if (existsSync(built)) {
      const { installLocalPlugin: fromDist } = (await import(
        pathToFileURL(built).href
      )) as typeof import("../../src/opencode-plugin/local-file.js");
      const f = fromDist(tempDir(), { mode: "rcm" });
      const mod = (await import(pathToFileURL(f).href)) as { default: { id: string; server: unknown } };
      expect(mod.default.id).toBe("switch-swe-rcm-local");
      expect(typeof mod.default.server).toBe("function");
    }
  });
});

describe("the RCM OpenCode plugin after a restart", () => {
  it("leaves routing of a new request to the first transform, which sees the history again", async () => {
    const dir = tempDir();
    const c = new Conversation();
    const texts = [
      "Implement `parse_amount` in ledger/amount.py for negative values.",
      "Add the income report renderer in reports/income.py with totals per category.",
      // Says it continues: naming only another task's module, a request is deferred (a new report names it alike).
      "Next, in reports/income.py the renderer should also print a grand total.",
      "parse_amount in ledger/amount.py must also accept a leading plus sign.",
    ];
    const { h } = await hooks({ mode: "router" }, dir);
    c.user(texts[0]!);
    c.assistant([{ tool: "write", input: { filePath: "ledger/amount.py" }, output: "ok" }]);
    c.user(texts[1]!);
    c.assistant([{ tool: "write", input: { filePath: "reports/income.py" }, output: "ok" }]);
    c.user(texts[2]!);
    for (const upTo of [1, 3, 5]) await h["experimental.chat.messages.transform"]!({}, { messages: c.snapshot().slice(0, upTo) });
    c.assistant([{ text: "Done." }]);
    // A new process (opencode run per request): chat.message comes before any transform.
    const { h: fresh } = await hooks({ mode: "router" }, dir);
    const id = c.user(texts[3]!);
    const m = c.messages.at(-1)!;
    await fresh["chat.message"]!({ sessionID: c.sessionID, messageID: id }, { message: m.info as never, parts: m.parts });
    const output = { messages: c.snapshot() };
    await fresh["experimental.chat.messages.transform"]!({}, output);
    const saved = loadStateFile(join(dir, "state"), c.sessionID)!;
    expect(saved.router.assignments[id]).toMatchObject({ task: "t1", method: "refs" });
    // The other task (started with files no task had named, so confidently new) is left out.
    expect(textsOf(output.messages)).not.toContain(texts[2]);
    expect(textsOf(output.messages)).not.toContain(texts[1]);
    expect(textsOf(output.messages)).toContain(texts[0]);
  });
});
