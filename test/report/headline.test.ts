import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport, renderReport, reportSchema, type Report } from "../../src/report/index.js";
import { referenceSpec, writeRunFixture, type Fixture } from "./fixtures.js";
import { tempDir } from "../helpers/temp.js";

let root: string;
let fx: Fixture;
let report: Report;

beforeAll(async () => {
  root = tempDir("report-headline-");
  fx = writeRunFixture(join(root, "machine-layout"), referenceSpec());
  // The sessions file changed after the run: the report warns, quoting its path.
  appendFileSync(fx.sessionsPath, "\n");
  report = await buildReport([fx.runDir], { resamples: 1000 });
});

const sentence = "oracle forget=0.5 (run): 80.0% resolved uninterrupted, 30.0% switched: a gap of +50.0 points (95% CI [";

describe("the result comes first", () => {
  it("the table opens with the result and its power sentence, before inputs and configurations, and ends on it", () => {
    const table = renderReport(report, "table");
    const lines = table.split("\n");
    expect(lines[0]).toBe("Result: the resumption gap");
    expect(lines[2]).toMatch(/^Configuration\s+Run\s+Pairs\s+Uninterrupted\s+Switched\s+Gap \(pp\)\s+95% CI\s+McNemar p$/);
    expect(lines[4]).toMatch(/^oracle forget=0\.5\s+run\s+10\s+80\.0%\s+30\.0%\s+\+50\.0\s+\[\+\d+\.\d, \+\d+\.\d\]\s+0\.0625$/);
    const flat = table.replace(/\s+/g, " ");
    expect(flat.indexOf("Power: no gap is detectable with these 10 pairs")).toBeLessThan(flat.indexOf("Inputs ==="));
    expect(table.indexOf("Inputs\n")).toBeLessThan(table.indexOf("Configurations\n"));
    const closing = table.slice(table.lastIndexOf("In one line\n"));
    expect(closing.replace(/\s+/g, " ")).toContain(sentence);
    expect(closing.replace(/\s+/g, " ").trim()).toMatch(/McNemar p = 0\.0625\) over 10 pairs\.$/);
  });

  it("markdown opens with the result table", () => {
    const md = renderReport(report, "markdown");
    expect(md.indexOf("### Result: the resumption gap")).toBe("## switch-swe report\n\n".length);
    expect(md).toMatch(/\| oracle forget=0\.5 \| run \| 10 \| 80\.0% \| 30\.0% \| \+50\.0 \| \[.*\] \| 0\.0625 \|/);
    expect(md.indexOf("### Result")).toBeLessThan(md.indexOf("### Inputs"));
  });

  it("json carries the headline per configuration", () => {
    const json = JSON.parse(renderReport(report, "json")) as Report;
    expect(reportSchema.safeParse(json).success).toBe(true);
    const h = json.configs[0]!.headline;
    expect(h).toMatchObject({ run: "run", pairs: 10, uninterrupted: 80, switched: 30, gap: 50, min_detectable_gap: null });
    expect(h.mcnemar_p).toBeCloseTo(0.0625, 12);
    expect(h.text).toContain(sentence);
    expect(h.power).toMatch(/^no gap is detectable with these 10 pairs/);
  });

  it("the html's first element after the title is the result", () => {
    const html = renderReport(report, "html", { outFile: join(root, "pages", "r.html") });
    const body = html.slice(html.indexOf("<body>"));
    const head = body.indexOf('<section id="headline"');
    expect(head).toBeGreaterThan(0);
    expect(body.slice(0, head).replace(/<[^>]+>|\s/g, "")).toBe("switch-swereport");
    const card = body.slice(head, body.indexOf("</section>"));
    expect(card).toContain("gap <strong>+50.0</strong> points");
    expect(card).toContain("uninterrupted <strong>80.0%</strong> → switched <strong>30.0%</strong> resolved · 10 pairs");
    expect(card).toContain("No gap is detectable with these 10 pairs");
    expect(head).toBeLessThan(body.indexOf('id="table-inputs"'));
  });
});

describe("no absolute path of this machine in what is shared", () => {
  it("names the run by its directory's name in every format, warnings included", () => {
    expect(report.configs[0]!.warnings.join("\n")).toContain(fx.sessionsPath); // in memory, the real path
    // The page beside the run: its links to run files are relative ("run/..."), as they must be to work.
    for (const format of ["table", "markdown", "json", "csv", "html"] as const) {
      const out = renderReport(report, format, { outFile: join(fx.root, "report.html") });
      expect(out, format).not.toContain(root);
      expect(out, format).not.toContain("machine-layout");
    }
    const json = JSON.parse(renderReport(report, "json")) as Report;
    expect(json.configs[0]!.sessions_file.path).toBe("sessions.json");
    expect(json.configs[0]!.dataset.path).toBe("dataset");
    expect(json.configs[0]!.warnings.join("\n")).toContain("sessions.json: sha256 differs");
  });
});
