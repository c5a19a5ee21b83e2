import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let fx: RunFixture;
let env: NodeJS.ProcessEnv;
let n = 0;
const nextOut = () => join(fx.root, `cli-${n++}`);

function base(out: string, ...extra: string[]) {
  return ["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--out", out, "--no-verify", ...extra];
}

/** A bad-input run: exit 2, one line per problem on stderr (one unless told), and no run directory left behind. */
function expectBadInput(args: string[], out: string, oneLine = true): string {
  const r = cli(args, { env });
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  if (oneLine) expect(lines).toHaveLength(1);
  expect(existsSync(join(out, "run.json"))).toBe(false);
  expect(existsSync(out)).toBe(false);
  return lines[0]!;
}

function tamperedSessions(edit: (f: SessionsFile) => void): string {
  const f = JSON.parse(readFileSync(fx.sessionsPath, "utf8")) as SessionsFile;
  edit(f);
  const file = join(fx.root, `sessions-${n++}.json`);
  writeFileSync(file, JSON.stringify(f));
  return file;
}

beforeAll(() => {
  fx = makeRunFixture(1);
  env = { SWITCH_SWE_CACHE: fx.cache };
});

describe.skipIf(missingTool)("switch-swe run: bad input", () => {
  it("unknown agent, unknown option, missing command binary", () => {
    let out = nextOut();
    expect(expectBadInput(base(out, "--agent", "gpt"), out)).toMatch(
      /^--agent: unknown agent "gpt" \(known: ([\w-]+, )*command, ([\w-]+, )*nop, ([\w-]+, )*oracle(, [\w-]+)*\)$/,
    );
    out = nextOut();
    expect(expectBadInput(base(out, "--agent", "oracle", "--agent-opt", "forgot=1"), out)).toBe(
      "--agent-opt: forgot: unknown option of agent oracle",
    );
    out = nextOut();
    expect(expectBadInput(base(out, "--agent", "command", "--agent-opt", "command=no-such-agent-xyz -p"), out)).toBe(
      '--agent-opt: command: program "no-such-agent-xyz" not found on PATH',
    );
    out = nextOut();
    expect(expectBadInput(base(out, "--agent", "nop", "--rcm", "rcm"), out)).toBe(
      "--rcm: needs the agent's model endpoint to stand in front of: give --agent-opt base_url=URL",
    );
    out = nextOut();
    expect(expectBadInput(base(out, "--agent", "nop", "--rcm-state", "model"), out)).toBe(
      "--rcm-state: only with --rcm (the proxy's state memory); OpenCode's plugin takes --agent-opt rcm_state=model",
    );
  });

  it("a sessions file that does not match the dataset", () => {
    const cases: Array<[(f: SessionsFile) => void, RegExp]> = [
      [(f) => (f.dataset.version = "9"), /: dataset: built for synthetic@9, but the dataset is synthetic@1$/],
      [(f) => (f.pairs[0]!.interruptions[0] = "t99"), /: pairs\[0\]: task "t99" is not in the dataset$/],
      [
        (f) => {
          const step = f.pairs[0]!.schedules.switch.find((s) => s.kind === "stage")!;
          if (step.kind === "stage") step.text = "Something else.";
        },
        /: pairs\[0\]\.schedules\.switch\[\d+\]\.text: differs from the dataset's request \d of t\d\d$/,
      ],
    ];
    for (const [edit, pattern] of cases) {
      const out = nextOut();
      const sessions = tamperedSessions(edit);
      // Replacing a task breaks several fields: each is one line, the first names the unknown task.
      const line = expectBadInput(["run", "--dataset", fx.datasetDir, "--sessions", sessions, "--agent", "nop", "--out", out], out, false);
      expect(line.startsWith(sessions)).toBe(true);
      expect(line).toMatch(pattern);
    }
  });

  it("an unknown --session, a non-empty RUN_DIR, a resume of nothing", () => {
    let out = nextOut();
    expect(expectBadInput(base(out, "--agent", "nop", "--session", "t99.base"), out)).toBe(
      '--session: "t99.base" is not a session of the sessions file (ids are <focus>.base or <focus>.switch)',
    );
    out = nextOut();
    const pair = fx.sessions.pairs[0]!.id;
    expect(expectBadInput(base(out, "--agent", "nop", "--condition", "base", "--session", `${pair}.switch`), out)).toBe(
      `--session: "${pair}.switch" is excluded by --condition base`,
    );
    out = nextOut();
    writeFileSync(join(fx.root, "not-empty-marker"), "");
    const notEmpty = fx.root;
    const r = cli(base(notEmpty, "--agent", "nop"), { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `${notEmpty}: already exists and is not empty (add --resume to continue the run in it, or choose another --out)`,
    );
    expect(existsSync(join(notEmpty, "run.json"))).toBe(false);
    out = nextOut();
    expect(expectBadInput(["run", "--out", out, "--resume"], out)).toBe(
      `${out}: no run.json here: nothing to resume (start the run without --resume)`,
    );
  });
});

describe.skipIf(missingTool)("switch-swe run: a run from the command line", () => {
  it("runs, prints one line per event when not a terminal, and resumes with only --out (nothing left to do)", () => {
    const out = nextOut();
    const r = cli(base(out, "--agent", "oracle", "--agent-opt", "forget=0.5", "--seed", "3"), { env });
    if (r.code !== 0) console.log(r.stderr);
    expect(r.stderr).toMatch(/ t\d\d\.base: attempt 1 started \(\d+ requests\)\n/);
    expect(r.stderr).toMatch(/ run done: 2 finished, 0 failed, 0 skipped, \d\d:\d\d:\d\d\n$/);
    expect(r.code).toBe(0);
    expect(readdirSync(join(out, "sessions")).sort()).toEqual([`${fx.sessions.pairs[0]!.id}.base`, `${fx.sessions.pairs[0]!.id}.switch`]);
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as Record<string, unknown>;
    expect(config).toMatchObject({
      format: "switch-swe.run/1",
      seed: 3,
      label: "oracle forget=0.5",
      agent: { name: "oracle", options: { forget: "0.5" } },
    });

    const again = cli(["run", "--out", out, "--resume", "--json", "--no-verify"], { env });
    expect(again.code).toBe(0);
    const events = again.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; skipped?: number });
    expect(events[0]).toMatchObject({ type: "run_start", sessions: 2, skipped: 2, requests: 0 });
    expect(events.at(-1)).toMatchObject({ type: "run_end", finished: 0, skipped: 2, failed: 0 });

    // Resuming with different options names the field that differs.
    const differs = cli(["run", "--out", out, "--resume", "--agent-opt", "forget=0.6"], { env });
    expect(differs.code).toBe(2);
    expect(differs.stderr.trim()).toBe(
      `${join(out, "run.json")}: agent.options: the run was started with {"forget":"0.5"}, --agent-opt now gives {"forget":"0.6"}: resume with the same options or use a new --out`,
    );
    const seed = cli(["run", "--out", out, "--resume", "--seed", "4"], { env });
    expect(seed.stderr.trim()).toMatch(/run\.json: seed: the run was started with 3, --seed now gives 4/);
  });

  it("exits 1 when sessions failed on infrastructure faults, and --quiet prints nothing", () => {
    const out = nextOut();
    const pair = fx.sessions.pairs[0]!.id;
    const r = cli(base(out, "--agent", "command", "--agent-opt", "command=env /no/such/binary", "--session", `${pair}.base`, "--quiet"), {
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("");
  });
});
