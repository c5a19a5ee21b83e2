import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";

let fx: RunFixture;

beforeAll(() => {
  fx = makeRunFixture(1);
});

/** Exit 2, no stack trace, and the lines of stderr. */
function badInput(args: string[]): string[] {
  const r = cli(args, { env: { SWITCH_SWE_CACHE: fx.cache } });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim().split("\n");
}

describe("bad input, said one way", () => {
  it("every command that reads a run says 'not a run directory' in the same one line", () => {
    const missing = join(fx.root, "no-such-run");
    const empty = join(fx.root, "not-a-run");
    mkdirSync(empty, { recursive: true });
    const out = join(fx.root, "out");
    const commands = (dir: string): string[][] => [
      ["report", dir],
      ["compare", dir, dir],
      ["verify", dir],
      ["export", "atif", dir, "--out", out],
      ["rcm", "eval", dir],
      ["handoff", "from-run", dir, "--out", join(out, "h.json")],
    ];
    for (const [dir, why] of [
      [missing, "no such directory"],
      [empty, "no run.json: a run directory is what `switch-swe run --out` writes"],
    ] as const) {
      for (const args of commands(dir)) expect(badInput(args), args.join(" ")).toEqual([`${dir}: not a run directory (${why})`]);
    }
  });

  it("a sessions file of another dataset: the cause in one line, then how many more problems follow from it", () => {
    const f = JSON.parse(readFileSync(fx.sessionsPath, "utf8")) as SessionsFile;
    // Built from another dataset: another name, and none of its task ids is in this one.
    const other = JSON.parse(JSON.stringify(f).replace(/"t(\d\d)"/g, '"other-$1"')) as SessionsFile;
    other.dataset.name = "other";
    const file = join(fx.root, "other-sessions.json");
    writeFileSync(file, JSON.stringify(other));
    const lines = badInput([
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      file,
      "--agent",
      "nop",
      "--sandbox",
      "none",
      "--out",
      join(fx.root, "run-other"),
    ]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${file}: dataset: built for other@1, but the dataset is synthetic@1`);
    expect(lines[1]).toMatch(/^… and \d+ more problems that follow from it \(its pairs name tasks and texts of that dataset\)$/);
    expect(Number(/and (\d+) more/.exec(lines[1]!)![1])).toBeGreaterThan(5);
  });

  // The five kinds of bad input beyond the two above: each said in at most two lines, naming the file.
  it("a malformed sessions file, a missing dataset, a damaged run.json, an unknown agent option, a sessions file of the wrong format: two lines at most, the file first", () => {
    const notJson = join(fx.root, "not-json.json");
    writeFileSync(notJson, "{ pairs: [");
    const wrongFormat = join(fx.root, "wrong-format.json");
    writeFileSync(wrongFormat, JSON.stringify({ format: "switch-swe.sessions/0", pairs: 3 }));
    const damaged = join(fx.root, "damaged-run");
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, "run.json"), '{"format": "switch-swe.run/1", "sessions": ');
    const run = (sessions: string, dataset = fx.datasetDir, extra: string[] = []) => [
      "run",
      "--dataset",
      dataset,
      "--sessions",
      sessions,
      "--agent",
      "nop",
      "--sandbox",
      "none",
      "--out",
      join(fx.root, "run-bad"),
      ...extra,
    ];
    const cases: Array<[string[], string]> = [
      [run(notJson), notJson],
      [run(fx.sessionsPath, join(fx.root, "no-such-dataset")), join(fx.root, "no-such-dataset")],
      [["report", damaged], damaged],
      [run(fx.sessionsPath, fx.datasetDir, ["--agent-opt", "no_such_option=1"]), "no_such_option"],
      [run(wrongFormat), wrongFormat],
    ];
    for (const [args, named] of cases) {
      const lines = badInput(args);
      expect(lines.length, `${args.join(" ")}:\n${lines.join("\n")}`).toBeLessThanOrEqual(2);
      expect(lines[0], args.join(" ")).toContain(named);
    }
  });
});
