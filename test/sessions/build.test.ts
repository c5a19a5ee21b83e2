import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset, type Dataset } from "../../src/dataset/load.js";
import { buildSessions } from "../../src/sessions/build.js";
import { checkSessions } from "../../src/sessions/check.js";
import { sessionsFileSchema, type SessionsFile } from "../../src/formats/sessions.js";
import { profileSteps } from "../../src/sessions/stats.js";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

let dir: string;
let dataset: Dataset;
const env = { SWITCH_SWE_CACHE: join(tempDir(), "cache") };

beforeAll(() => {
  dir = writeSyntheticDataset(tempDir(), layoutTen.files, layoutTen.tasks);
  dataset = loadDataset(dir);
});

const clone = (f: SessionsFile): SessionsFile => JSON.parse(JSON.stringify(f)) as SessionsFile;

describe("buildSessions", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const a = JSON.stringify(buildSessions(dataset, { seed: 7 }));
    expect(JSON.stringify(buildSessions(dataset, { seed: 7 }))).toBe(a);
    expect(JSON.stringify(buildSessions(dataset, { seed: 8 }))).not.toBe(a);
  });

  it("builds sessions that the independent validator accepts, with the method's properties", () => {
    for (const seed of [0, 1, 2, 3, 4]) {
      const file = buildSessions(dataset, { seed });
      expect(sessionsFileSchema.safeParse(file).success).toBe(true);
      expect(checkSessions(file, dataset)).toEqual([]);
      expect(file.focus_returns).toBe("every-stage");
      for (const pair of file.pairs) {
        const focusSteps = (steps: typeof pair.schedules.base) => steps.filter((s) => s.task === pair.focus);
        expect(focusSteps(pair.schedules.switch)).toEqual(pair.schedules.base);
        expect(pair.schedules.switch.at(-1)).toMatchObject({ kind: "finalization", task: pair.focus });
        const stages = dataset.tasks.find((t) => t.id === pair.focus)!.requests.length;
        const profile = profileSteps(pair.schedules.switch, pair.focus);
        // The focus returns before every stage after the first (the sample's interruptions have requests enough).
        expect(profile.focus_returns).toBe(stages - 1);
        // Every interruption with two or more scheduled requests is suspended and resumed.
        for (const id of pair.interruptions) {
          const idx = pair.schedules.switch.flatMap((s, i) => (s.task === id ? [i] : []));
          if (idx.length >= 2) expect(idx.at(-1)! - idx[0]!).toBeGreaterThan(idx.length - 1);
        }
      }
    }
  });

  it("assigns the focus to different workspaces across sessions", () => {
    const file = buildSessions(dataset, { seed: 3 });
    const focusWs = new Set(file.pairs.map((p) => Object.entries(p.workspaces).find(([, t]) => t === p.focus)![0]));
    expect(focusWs.size).toBeGreaterThan(1);
  });

  it("forms near and far sessions and explains exclusions", () => {
    const file = buildSessions(dataset, { seed: 0 });
    expect(file.pairs.some((p) => p.locality === "near")).toBe(true);
    expect(file.pairs.some((p) => p.locality === "far")).toBe(true);
    expect(file.pairs.length + file.excluded.length).toBe(dataset.tasks.length);
    // t01 and t10 share pkg/a/one.py: neither interrupts the other.
    for (const p of file.pairs) {
      if (p.focus === "t01") expect(p.interruptions).not.toContain("t10");
      if (p.focus === "t10") expect(p.interruptions).not.toContain("t01");
    }
  });

  it("honours --near/--far counts and says which constraint failed when they cannot be met", () => {
    const file = buildSessions(dataset, { seed: 0, near: 2, far: 3 });
    expect(file.pairs.filter((p) => p.locality === "near")).toHaveLength(2);
    expect(file.pairs.filter((p) => p.locality === "far")).toHaveLength(3);
    expect(() => buildSessions(dataset, { seed: 0, near: 9 })).toThrow(/asked for 9 near sessions, but only \d+ could be formed/);
  });

  it("the validator names the session and the property for each kind of tampering", () => {
    const good = buildSessions(dataset, { seed: 5 });
    const pair = good.pairs.find((p) => p.schedules.base.length >= 3)!;
    const cases: Array<[string, (f: SessionsFile) => void]> = [
      [
        "payload",
        (f) => {
          const s = f.pairs.find((p) => p.id === pair.id)!.schedules.switch.find((x) => x.kind === "stage")!;
          if (s.kind === "stage") s.text += " (edited)";
        },
      ],
      [
        "finalization-last",
        (f) => {
          const sw = f.pairs.find((p) => p.id === pair.id)!.schedules.switch;
          sw.unshift(sw.pop()!);
        },
      ],
      [
        "task-order",
        (f) => {
          const b = f.pairs.find((p) => p.id === pair.id)!.schedules.base;
          [b[0], b[1]] = [b[1]!, b[0]!];
        },
      ],
      [
        "workspace-path",
        (f) => {
          const s = f.pairs.find((p) => p.id === pair.id)!.schedules.switch[0]!;
          s.workspace = s.workspace === "w00" ? "w01" : "w00";
        },
      ],
      [
        "locality",
        (f) => {
          const p = f.pairs.find((x) => x.id === pair.id)!;
          p.locality = p.locality === "near" ? "far" : "near";
        },
      ],
      [
        "interruptions",
        (f) => {
          f.pairs.find((p) => p.id === pair.id)!.interruptions[1] = "no-such-task";
        },
      ],
    ];
    for (const [property, mutate] of cases) {
      const f = clone(good);
      mutate(f);
      const v = checkSessions(f, dataset);
      expect(
        v.map((x) => x.property),
        property,
      ).toContain(property);
      expect(v.every((x) => x.session.startsWith(pair.id) || x.session === pair.id)).toBe(true);
    }
  });
});

describe("sessions CLI", () => {
  it("build writes byte-identical files for the same seed; validate and stats read them", () => {
    const out = tempDir();
    const a = cli(["sessions", "build", dir, "--seed", "11", "--out", join(out, "a.json")], { env });
    const b = cli(["sessions", "build", dir, "--seed", "11", "--out", join(out, "b.json")], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(b.code).toBe(0);
    expect(readFileSync(join(out, "a.json"))).toEqual(readFileSync(join(out, "b.json")));
    const v = cli(["sessions", "validate", join(out, "a.json"), "--dataset", dir], { env });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const s = cli(["sessions", "stats", join(out, "a.json"), "--json"], { env });
    const stats = JSON.parse(s.stdout) as {
      summary: { switch: { overall: { median_requests: number; median_focus_stages: number } } };
      sessions: Array<{ focus_stages: number }>;
    };
    expect(stats.summary.switch.overall.median_requests).toBeGreaterThan(0);
    // The sample's tasks have two or more stages, each one request of the focus.
    const file = JSON.parse(readFileSync(join(out, "a.json"), "utf8")) as SessionsFile;
    const stagesOf = (p: SessionsFile["pairs"][number]) => p.schedules.base.filter((x) => x.task === p.focus && x.kind === "stage").length;
    expect(stats.sessions.map((x) => x.focus_stages)).toEqual(file.pairs.flatMap((p) => [stagesOf(p), stagesOf(p)]));
  });

  it("stats pools several sessions files as one benchmark, and refuses the same pairs twice", () => {
    const out = tempDir();
    cli(["sessions", "build", dir, "--seed", "3", "--out", join(out, "a.json")], { env });
    const f = JSON.parse(readFileSync(join(out, "a.json"), "utf8")) as SessionsFile;
    // A second "dataset": the first half of the pairs under other ids.
    const ids = [...new Set(f.pairs.flatMap((p) => p.schedules.switch.map((x) => x.task)))];
    const renamed = (p: SessionsFile["pairs"][number]) =>
      JSON.parse(ids.reduce((text, id) => text.split(`"${id}"`).join(`"other-${id}"`), JSON.stringify(p))) as SessionsFile["pairs"][number];
    const half = { ...f, pairs: f.pairs.slice(0, Math.ceil(f.pairs.length / 2)).map(renamed) };
    writeFileSync(join(out, "b.json"), JSON.stringify(half));
    const one = JSON.parse(cli(["sessions", "stats", join(out, "a.json"), "--json"], { env }).stdout) as {
      power: { pairs: number };
      sessions: unknown[];
    };
    const both = cli(["sessions", "stats", join(out, "a.json"), join(out, "b.json")], { env });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout.split("\n")[0]).toBe(`2 sessions files pooled: ${f.pairs.length + half.pairs.length} pairs`);
    const json = JSON.parse(cli(["sessions", "stats", join(out, "a.json"), join(out, "b.json"), "--json"], { env }).stdout) as {
      files: string[];
      power: { pairs: number };
      sessions: unknown[];
    };
    expect(json.files).toEqual([join(out, "a.json"), join(out, "b.json")]);
    expect(json.power.pairs).toBe(one.power.pairs + half.pairs.length);
    expect(json.sessions).toHaveLength(2 * (f.pairs.length + half.pairs.length));
    const twice = cli(["sessions", "stats", join(out, "a.json"), join(out, "a.json")], { env });
    expect(twice.code).toBe(2);
    expect(twice.stderr.trim()).toBe(
      `${join(out, "a.json")}: pairs: pair ${f.pairs[0]!.id} is in an earlier sessions file too: the same dataset twice`,
    );
  });

  it("validate exits 1 and names the session and property of each violation", () => {
    const out = tempDir();
    cli(["sessions", "build", dir, "--seed", "2", "--out", join(out, "s.json")], { env });
    const f = JSON.parse(readFileSync(join(out, "s.json"), "utf8")) as SessionsFile;
    const sw = f.pairs[0]!.schedules.switch;
    sw.unshift(sw.pop()!);
    writeFileSync(join(out, "s.json"), JSON.stringify(f));
    const v = cli(["sessions", "validate", join(out, "s.json"), "--dataset", dir], { env });
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`${f.pairs[0]!.id}.switch: finalization-last:`);
  });

  it("validate rejects a hand-edited schedule in which the focus never returns, or an interruption is never resumed", () => {
    const out = tempDir();
    cli(["sessions", "build", dir, "--seed", "4", "--out", join(out, "s.json")], { env });
    const built = JSON.parse(readFileSync(join(out, "s.json"), "utf8")) as SessionsFile;
    const stagesOf = (id: string) => dataset.tasks.find((t) => t.id === id)!.requests.length;
    const pair = built.pairs.find((p) => stagesOf(p.focus) >= 3 && p.interruptions.some((i) => stagesOf(i) >= 2))!;
    const validate = (f: SessionsFile, name: string) => {
      writeFileSync(join(out, name), JSON.stringify(f));
      return cli(["sessions", "validate", join(out, name), "--dataset", dir], { env });
    };
    expect(validate(built, "ok.json").code).toBe(0);

    // The focus never returns: every interruption request moved, in order, after the last focus stage.
    const noReturn = clone(built);
    const p1 = noReturn.pairs.find((p) => p.id === pair.id)!;
    const sw = p1.schedules.switch;
    p1.schedules.switch = [
      ...sw.filter((s) => s.task === pair.focus && s.kind === "stage"),
      ...sw.filter((s) => s.task !== pair.focus),
      sw.at(-1)!,
    ];
    const v1 = validate(noReturn, "no-return.json");
    expect(v1.code, v1.stdout + v1.stderr).toBe(1);
    expect(v1.stdout).toMatch(new RegExp(`^${pair.id}\\.switch: focus-returns: the focus returns 0 time\\(s\\)`, "m"));

    // An interruption never suspended: its requests gathered where its first one was.
    const noResume = clone(built);
    const p2 = noResume.pairs.find((p) => p.id === pair.id)!;
    const victim = pair.interruptions.find((i) => stagesOf(i) >= 2)!;
    const mine = p2.schedules.switch.filter((s) => s.task === victim);
    const first = p2.schedules.switch.findIndex((s) => s.task === victim);
    const rest = p2.schedules.switch.filter((s) => s.task !== victim);
    rest.splice(first, 0, ...mine);
    p2.schedules.switch = rest;
    const v2 = validate(noResume, "no-resume.json");
    expect(v2.code, v2.stdout + v2.stderr).toBe(1);
    expect(v2.stdout).toContain(`${pair.id}.switch: interruption-resumed: ${victim}'s ${mine.length} requests come one after another`);
  });

  it("bad input: one line per problem with the field path, exit 2, no stack trace", () => {
    const out = tempDir();
    writeFileSync(join(out, "bad.json"), JSON.stringify({ format: "switch-swe.sessions/1", dataset: { name: "x" }, seed: -1, pairs: [] }));
    const v = cli(["sessions", "stats", join(out, "bad.json")], { env });
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(`${join(out, "bad.json")}: dataset.version:`);
    expect(v.stderr).toContain(`${join(out, "bad.json")}: seed:`);
    expect(v.stderr).toContain(`${join(out, "bad.json")}: excluded:`);
    expect(v.stderr).not.toMatch(/\n\s+at /);
    const u = cli(["sessions", "build", dir, "--seed", "x", "--out", join(out, "o.json")], { env });
    expect(u.code).toBe(2);
    expect(u.stderr).toContain("--seed must be a non-negative integer");
  });
});
