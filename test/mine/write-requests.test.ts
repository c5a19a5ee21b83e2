import { spawn } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../src/core/digest.js";
import { defaultSourceExclude, defaultSourceInclude, defaultTestGlobs, testFileMatcher } from "../../src/dataset/file-rules.js";
import { stagePatchesOf, testsPatchOf } from "../../src/manifests/derive.js";
import { checkRewrite } from "../../src/mine/writer-check.js";
import { WRITER_SYSTEM_PROMPT } from "../../src/mine/writer-prompt.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { cliAsync, cliPath } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-write-requests-");
const env = { SWITCH_SWE_CACHE: join(root, "cache"), OPENAI_API_KEY: "sk-test" };
const { repo, init, commit } = gitHistory(root, "shapes");
const manifestV1 = join(root, "manifest-v1.json");
const dataset = join(root, "dataset");
const commits: string[] = [];

const rect = "Add the area of a rectangle\n\nRectangles are the next most common shape.";
const goodRect = "Please let me compute the area of a rectangle as well, from the lengths of its two sides.";
const goodTriangle = "Now I also need triangles: give me their area from a base and a height.";

/** A three-commit history and a `/1` manifest of its two-stage task, digests derived from the repository. */
async function buildManifest(): Promise<void> {
  init();
  // A private helper far from every change: no patch line shows it, only the touched file does.
  const head = "def _unit_scale():\n    return 1\n\n\n\n\n\n";
  commits.push(
    commit("Initial layout", {
      "shapes/area.py": `${head}def square(a):\n    return a * a\n`,
      "tests/test_base.py": "def test_base():\n    assert True\n",
    }),
  );
  const area2 = `${head}def square(a):\n    return a * a\n\n\ndef rect_area(width, height):\n    return width * height\n`;
  commits.push(
    commit(rect, {
      "shapes/area.py": area2,
      "tests/test_rect.py": "from shapes.area import rect_area\n\n\ndef test_rect():\n    assert rect_area(2, 3) == 6\n",
    }),
  );
  const area3 = `${area2}\n\ndef triangle_area(base, height):\n    return base * height / 2\n`;
  commits.push(
    commit("Add the area of a triangle", { "shapes/area.py": area3, "tests/test_triangle.py": "def test_triangle():\n    assert True\n" }),
  );
  const repoEntry = { git: repo, source: { include: defaultSourceInclude, exclude: defaultSourceExclude }, tests: defaultTestGlobs };
  const gitDir = join(repo, ".git");
  const cuts = commits.slice(1);
  const patches = await stagePatchesOf(gitDir, commits[0]!, cuts, testFileMatcher(repoEntry));
  const manifest = {
    format: "switch-swe.task-manifest/1",
    name: "shapes-mined",
    version: "1",
    repos: { shapes: repoEntry },
    tasks: [
      {
        id: "shapes-1",
        repo: "shapes",
        base: commits[0],
        provenance: "chain of 2 commits on shapes/",
        stages: cuts.map((cut, k) => ({
          cut,
          provenance: `commit ${cut}: request derived from its message`,
          tests: [`tests/test_${k === 0 ? "rect" : "triangle"}.py::test_x`],
          patch_sha256: sha256(patches[k]!),
        })),
        tests_patch_sha256: sha256(await testsPatchOf(gitDir, commits[0]!, cuts[1]!, testFileMatcher(repoEntry))),
        verifier: { fail_to_pass: ["tests/test_rect.py::test_x", "tests/test_triangle.py::test_x"], pass_to_pass: [], timeout_s: 1800 },
      },
    ],
  };
  writeFileSync(manifestV1, `${JSON.stringify(manifest, null, 2)}\n`);
}

beforeAll(async () => {
  await buildManifest();
  const r = await cliAsync(["datasets", "materialize", manifestV1, "--out", dataset], { env });
  expect(r.stderr).toBe("");
  cpSync(manifestV1, join(dataset, "manifest.json"));
}, 120_000);
afterAll(() => undefined);

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Turn = { match: string; text?: string; error?: { status: number; message: string }; delay_ms?: number };
async function serve(turns: Turn[]): Promise<MockModelServer> {
  server = await startMockModel({ script: parseScript(turns.map((t) => ({ requests: "any", ...t }))) });
  return server;
}
const reply = (request: string) => JSON.stringify({ request });
const writerArgs = (s: MockModelServer, ...more: string[]) => ["--writer-model", "local:writer", "--writer-base-url", s.baseURL, ...more];

/** Every file of a directory tree with its bytes, to show that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), "utf8");
  return out;
}
const readJson = (f: string) => JSON.parse(readFileSync(f, "utf8"));
const userPrompts = (s: MockModelServer) =>
  s.requests().map((r) => (r.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === "user")!.content);

describe("tasks write-requests on a dataset", () => {
  it("writes checked rewrites into task.json and manifest.json, and materialization then uses them", { timeout: 120_000 }, async () => {
    const d = join(root, "good");
    cpSync(dataset, d, { recursive: true });
    const s = await serve([
      { match: "Step 1 of 2", text: reply(goodRect) },
      { match: "Step 2 of 2", text: reply(goodTriangle) },
    ]);
    const r = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env });
    expect(r.stdout).toBe(
      `${d}: 2 request text(s) written, 0 rewrite(s) refused (derived text kept, reason recorded), 0 left as they were\n`,
    );
    expect(r.code).toBe(0);

    const body = s.requests()[0]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages[0]).toEqual({ role: "system", content: WRITER_SYSTEM_PROMPT });
    const [first, second] = userPrompts(s);
    expect(first).toContain(rect);
    expect(first).toContain("shapes/area.py | +4 -0");
    expect(first).not.toContain("return width * height");
    expect(second).toContain(`1. ${goodRect}`);

    const task = readJson(join(d, "tasks", "shapes-1", "task.json"));
    expect(task.requests.map((q: { text: string }) => q.text)).toEqual([goodRect, goodTriangle]);
    expect(task.requests[0].writer).toMatchObject({
      status: "written",
      model: "local:writer",
      attempts: 1,
      prompt_version: "request-writer/2",
    });
    expect(task.requests[0].writer.prompt_sha256).toBe(sha256(`${WRITER_SYSTEM_PROMPT}\n\n${first}`));
    const manifest = readJson(join(d, "manifest.json"));
    expect(manifest.format).toBe("switch-swe.task-manifest/2");
    expect(manifest.tasks[0].stages.map((st: { text: string }) => st.text)).toEqual([goodRect, goodTriangle]);
    expect(manifest.tasks[0].stages[1].writer).toEqual(task.requests[1].writer);

    const again = join(root, "good-materialized");
    const m = await cliAsync(["datasets", "materialize", join(d, "manifest.json"), "--out", again], { env });
    expect(m.code).toBe(0);
    const materialized = readJson(join(again, "tasks", "shapes-1", "task.json"));
    expect(materialized.requests).toEqual(task.requests);
    expect((await cliAsync(["tasks", "validate", again], { env })).code).toBe(0);

    const before = snapshot(d);
    const rerun = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env });
    expect(rerun.stdout).toContain(
      ": 0 request text(s) written, 0 rewrite(s) refused (derived text kept, reason recorded), 2 left as they were\n",
    );
    expect(s.requests()).toHaveLength(2);
    expect(snapshot(d)).toEqual(before);
  });

  for (const [what, turn, message] of [
    [
      "malformed JSON",
      { match: "Step 1", text: "Sure! The user wants rectangles." },
      /^error: local:writer: malformed reply: not JSON \(.+\): "Sure! The user wants rectangles\."$/,
    ],
    [
      "an HTTP 500",
      { match: "Step 1", error: { status: 500, message: "upstream exploded" } },
      /^error: local:writer: request failed: HTTP 500: upstream exploded$/,
    ],
    ["a timeout", { match: "Step 1", text: reply(goodRect), delay_ms: 4000 }, /^error: local:writer: request failed: .*(time|abort)/i],
  ] as const) {
    it(`${what} leaves the dataset unchanged and exits 1 with a one-line reason`, { timeout: 60_000 }, async () => {
      const d = join(root, what.replace(/\W+/g, "-"));
      cpSync(dataset, d, { recursive: true });
      const before = snapshot(d);
      const s = await serve([turn]);
      const r = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s, "--writer-timeout-s", "1")], { env });
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines[0]).toMatch(message);
      expect(lines[1]).toBe(
        `that stage is unchanged and every text written before it is kept; resume with: switch-swe tasks write-requests ${d} --writer-model local:writer --writer-base-url ${s.baseURL} --writer-timeout-s 1`,
      );
      expect(lines).toHaveLength(2);
      expect(snapshot(d)).toEqual(before);
    });
  }

  it("a failure after one stage keeps that stage, and the same command resumes with the rest", { timeout: 60_000 }, async () => {
    const d = join(root, "resume");
    cpSync(dataset, d, { recursive: true });
    let s = await serve([
      { match: "Step 1 of 2", text: reply(goodRect) },
      { match: "Step 2 of 2", error: { status: 503, message: "overloaded" } },
    ]);
    expect((await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env })).code).toBe(1);
    const task = readJson(join(d, "tasks", "shapes-1", "task.json"));
    expect(task.requests.map((q: { text: string }) => q.text)).toEqual([goodRect, "Add the area of a triangle"]);
    expect(task.requests[1].writer).toBeUndefined();
    expect(readJson(join(d, "manifest.json")).tasks[0].stages.map((st: { text?: string }) => st.text)).toEqual([goodRect, undefined]);
    await s.close();
    s = await serve([{ match: "Step 2 of 2", text: reply(goodTriangle) }]);
    const r = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env });
    expect(r.stdout).toContain(
      ": 1 request text(s) written, 0 rewrite(s) refused (derived text kept, reason recorded), 1 left as they were\n",
    );
    expect(userPrompts(s)).toHaveLength(1);
    expect(userPrompts(s)[0]).toContain(`1. ${goodRect}`);
    expect(readJson(join(d, "tasks", "shapes-1", "task.json")).requests[1].text).toBe(goodTriangle);
  });
});

describe("a write-requests run killed while it waits for the model", () => {
  it("keeps the stage written before, leaves whole files, and the same command finishes the rest", { timeout: 60_000 }, async () => {
    const d = join(root, "killed");
    cpSync(dataset, d, { recursive: true });
    let s = await serve([
      { match: "Step 1 of 2", text: reply(goodRect) },
      { match: "Step 2 of 2", text: reply(goodTriangle), delay_ms: 30_000 },
    ]);
    const child = spawn(process.execPath, [cliPath, "tasks", "write-requests", d, ...writerArgs(s)], {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    const exited = new Promise((r) => child.on("close", r));
    while (s.requests().length < 2) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGKILL");
    await exited;
    const task = readJson(join(d, "tasks", "shapes-1", "task.json"));
    expect(task.requests.map((q: { text: string }) => q.text)).toEqual([goodRect, "Add the area of a triangle"]);
    expect(readJson(join(d, "manifest.json")).tasks[0].stages[0].text).toBe(goodRect);
    expect(readdirSync(join(d, "tasks", "shapes-1")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    await s.close();
    s = await serve([{ match: "Step 2 of 2", text: reply(goodTriangle) }]);
    const r = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env });
    expect(r.code).toBe(0);
    expect(readJson(join(d, "tasks", "shapes-1", "task.json")).requests[1].text).toBe(goodTriangle);
  });
});

describe("the check sees the private names of the touched files, not only of the patch", () => {
  const leak = "Please let me compute rectangle areas, scaled the way _unit_scale scales squares.";
  const reason = "private names: it names a private name of the code: _unit_scale";
  it(
    "on a dataset and on a manifest, a rewrite naming one is asked again with the reason, then refused",
    { timeout: 120_000 },
    async () => {
      const d = join(root, "private");
      cpSync(dataset, d, { recursive: true });
      // The patch alone does not show it (only git's hunk header might, which is no line of code).
      expect(checkRewrite(leak, { patch: readFileSync(join(d, "tasks", "shapes-1", "stage-1.patch"), "utf8"), given: [] })).toBeNull();
      const turns = [
        { match: "Step 1 of 2", text: reply(leak) },
        { match: "Step 1 of 2", text: reply(leak) },
        { match: "Step 2 of 2", text: reply(goodTriangle) },
      ];
      const s = await serve([...turns, ...turns]);
      const r = await cliAsync(["tasks", "write-requests", d, ...writerArgs(s)], { env });
      expect(r.stderr).toContain(`shapes-1 stage 1: rewrite refused (${reason}); the derived text stays\n`);
      expect(userPrompts(s)[1]).toContain(`Your previous answer was refused: ${reason}. Write it again without that.`);
      expect(readJson(join(d, "tasks", "shapes-1", "task.json")).requests[0].writer).toMatchObject({
        status: "refused",
        reason,
        prompt_version: "request-writer/2",
      });
      const out = join(root, "private-manifest.json");
      const m = await cliAsync(["tasks", "write-requests", manifestV1, "--out", out, ...writerArgs(s)], { env });
      expect(m.stderr).toContain(`shapes-1 stage 1: rewrite refused (${reason}); the derived text stays\n`);
      expect(readJson(out).tasks[0].stages[0].writer).toMatchObject({ status: "refused", reason });
    },
  );
});

describe("tasks write-requests on a manifest", () => {
  it(
    "retries a rewrite that names an introduced identifier once, then keeps the derived text and records why",
    { timeout: 120_000 },
    async () => {
      const leak = "Please add a rect_area function so that I can compute rectangles.";
      const s = await serve([
        { match: "Step 1 of 2", text: reply(leak) },
        { match: "Step 1 of 2", text: reply(leak) },
        { match: "Step 2 of 2", text: reply(goodTriangle) },
      ]);
      const input = readFileSync(manifestV1, "utf8");
      const out = join(root, "written-manifest.json");
      const r = await cliAsync(["tasks", "write-requests", manifestV1, "--out", out, ...writerArgs(s)], { env });
      expect(r.stdout).toBe(
        `${out}: 1 request text(s) written, 1 rewrite(s) refused (derived text kept, reason recorded), 0 left as they were\n`,
      );
      expect(r.code).toBe(0);
      const reason = "it names an identifier that the change introduces: rect_area";
      expect(r.stderr).toContain(`shapes-1 stage 1: rewrite refused (${reason}); the derived text stays\n`);
      expect(userPrompts(s)[1]).toContain(`Your previous answer was refused: ${reason}. Write it again without that.`);
      expect(userPrompts(s)[2]).toContain(`1. ${rect.replace(/\n+/g, " ")}`);
      expect(readFileSync(manifestV1, "utf8")).toBe(input);

      const written = readJson(out);
      expect(written.format).toBe("switch-swe.task-manifest/2");
      expect(written.tasks[0].stages[0].text).toBeUndefined();
      expect(written.tasks[0].stages[0].writer).toMatchObject({ status: "refused", attempts: 2, reason });
      expect(written.tasks[0].stages[1]).toMatchObject({ text: goodTriangle, writer: { status: "written", attempts: 1 } });

      const d = join(root, "refused-materialized");
      expect((await cliAsync(["datasets", "materialize", out, "--out", d], { env })).code).toBe(0);
      const task = readJson(join(d, "tasks", "shapes-1", "task.json"));
      expect(task.requests[0]).toMatchObject({ text: rect, writer: { status: "refused", reason } });
      expect(task.requests[1].text).toBe(goodTriangle);

      // The same command again resumes from --out: every stage has its record, nothing is asked.
      const before = readFileSync(out, "utf8");
      const rerun = await cliAsync(["tasks", "write-requests", manifestV1, "--out", out, ...writerArgs(s)], { env });
      expect(rerun.stdout).toBe(
        `${out}: 0 request text(s) written, 0 rewrite(s) refused (derived text kept, reason recorded), 2 left as they were\n`,
      );
      expect(s.requests()).toHaveLength(3);
      expect(readFileSync(out, "utf8")).toBe(before);
    },
  );

  it("tasks mine refuses writer flags it cannot use before mining anything (exit 2)", async () => {
    const r = await cliAsync(["tasks", "mine", repo, "--out", join(root, "never"), "--writer-model", "local:writer"], { env });
    expect(r.stderr.trim()).toBe('--writer-base-url: needed for provider "local"');
    expect(r.code).toBe(2);
  });
});
