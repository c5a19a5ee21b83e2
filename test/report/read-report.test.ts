import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { buildReport, readReportFile, renderReport, type Report } from "../../src/report/index.js";
import { referenceSpec, writeRunFixture } from "./fixtures.js";
import { tempDir } from "../helpers/temp.js";

let root: string;
let fresh: Report;

beforeAll(async () => {
  root = tempDir("report-read-");
  const r = await buildReport([writeRunFixture(join(root, "ref"), referenceSpec()).runDir], { resamples: 300 });
  fresh = JSON.parse(renderReport(r, "json")) as Report;
});

/** The document as a report/2 written before the headline and the paper's analyses existed. */
function older(doc: Report): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as {
    configs: Array<Record<string, unknown> & { sessions: Array<{ usage: Record<string, unknown> | null }> }>;
  };
  for (const c of copy.configs) {
    for (const k of ["headline", "far_minus_near", "resumed_focus_token_ratio", "resolution_by_context", "interruption_reuse", "catalogue"])
      delete c[k];
    for (const s of c.sessions) if (s.usage) delete s.usage.focus_context_tokens;
  }
  return copy;
}

function write(name: string, value: unknown): string {
  const file = join(root, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function problemLines(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message.split("\n");
  }
  throw new Error("no error");
}

describe("reading a report/2 document back", () => {
  it("reads today's document as written", () => {
    expect(readReportFile(write("fresh.json", fresh))).toEqual(fresh);
  });

  it("completes an older one from its own figures: the same headline and analyses a fresh report gives", () => {
    const c = readReportFile(write("older.json", older(fresh))).configs[0]!;
    const f = fresh.configs[0]!;
    expect(c.headline).toEqual(f.headline);
    expect(c.far_minus_near).toEqual(f.far_minus_near);
    expect(c.resumed_focus_token_ratio).toEqual(f.resumed_focus_token_ratio);
    expect(c.interruption_reuse).toEqual(f.interruption_reuse);
    // What the older document never recorded: the focus context (unmeasured) and the repository.
    expect(c.resolution_by_context.unmeasured).toEqual({ base: 9, switch: 10 });
    expect(c.catalogue[3]).toEqual({ ...f.catalogue[3]!, repo: null });
    // t08 has no verdict and the dataset is not read back: its verifier size is unknown.
    expect(c.catalogue[8]).toMatchObject({ task: "t08", f2p: null, p2p: null, tested_stages: null });
    // And it renders like any report.
    expect(renderReport({ ...fresh, configs: [c] }, "table").split("\n")[0]).toBe("Result: the resumption gap");
  });

  it("says what is wrong in one line and how many more problems there are", () => {
    const broken = older(fresh) as { configs: Array<Record<string, unknown>> };
    delete broken.configs[0]!.groups;
    delete broken.configs[0]!.power;
    const lines = problemLines(() => readReportFile(write("broken.json", broken)));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/broken\.json: configs\[0\]\.groups: /);
    expect(lines[1]).toBe("… and 1 more problem");
    expect(problemLines(() => readReportFile(write("other.json", { format: "switch-swe.report/1", configs: [] })))[0]).toMatch(
      /^.*other\.json: format: /,
    );
  });
});
