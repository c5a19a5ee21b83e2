import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, renderReport } from "../../src/report/index.js";
import { referenceSpec, writeRunFixture } from "./fixtures.js";
import { tempDir } from "../helpers/temp.js";
import { chromiumPath, skipWithout } from "../helpers/tools.js";

const CHROMIUM = chromiumPath;
// Needs Chromium: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "chromium");

/** Screenshots go where a person (or CI) can look at them after the run. */
const OUTPUT_DIR = resolve("test-output", "report");

describe.skipIf(missingTool)("html report in headless chromium", () => {
  let root: string;
  let browser: Browser;
  let htmlFile: string;

  beforeAll(async () => {
    root = tempDir("report-html-");
    const a = writeRunFixture(join(root, "a"), referenceSpec());
    const b = writeRunFixture(join(root, "b"), {
      ...referenceSpec(),
      label: "oracle + <b>RCM</b>",
      pairs: referenceSpec().pairs.map((p, i) => (i < 3 ? { ...p, switch: "resolved" as const } : p)),
    });
    const report = await buildReport([a.runDir, b.runDir], { compare: true, resamples: 2000 });
    htmlFile = join(root, "pages", "nested", "report.html");
    mkdirSync(join(root, "pages", "nested"), { recursive: true });
    writeFileSync(htmlFile, renderReport(report, "html", { outFile: htmlFile }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("shows the result on the first screen at 1280×900, and no table is wider than the page", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load" });
    const head = page.locator("#headline");
    const box = (await head.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    const text = await head.innerText();
    expect(text).toMatch(/gap \+50\.0 points/);
    expect(text).toContain("uninterrupted 80.0% → switched 30.0% resolved · 10 pairs");
    // Every table fits its column: none needs its own horizontal scroll bar, the page none either.
    const wide = await page.$$eval(".table-wrap", (ws) =>
      ws.filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.querySelector("table")?.id ?? "?"),
    );
    expect(wide).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, "report-1280-first-screen.png") });
    await page.close();
  });

  it("at 390 px the page does not scroll sideways and the charts scale to the screen", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load" });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const svgs = await page.$$eval("figure svg", (ss) =>
      ss.map((s) => ({
        id: s.id,
        right: s.getBoundingClientRect().right,
        fits: s.parentElement!.scrollWidth <= s.parentElement!.clientWidth + 1,
      })),
    );
    expect(svgs.length).toBe(5);
    for (const s of svgs) {
      expect(s.right, s.id).toBeLessThanOrEqual(390);
      expect(s.fits, s.id).toBe(true);
    }
    expect(await page.locator("#headline").innerText()).toMatch(/gap \+50\.0 points/);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, "report-390.png"), fullPage: false });
    await page.close();
  });

  it("opens offline, draws the charts, and shows a session's timeline and verdict", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    const url = pathToFileURL(htmlFile).href;
    await page.goto(url, { waitUntil: "load" });

    // Charts: 2 configurations × 3 groups × 2 conditions bars; a dot and whiskers per (configuration, group); 2 ratio bars per configuration.
    expect(await page.locator("#chart-resolution rect.res-bar").count()).toBe(12);
    expect(await page.locator("#chart-gap circle.gap-dot").count()).toBe(6);
    expect(await page.locator("#chart-gap g.gap-ci").count()).toBe(6);
    expect(await page.locator("#chart-tokens rect.ratio-bar").count()).toBe(4);
    const h = await page
      .locator('#chart-resolution rect.res-bar[data-config="0"][data-group="overall"][data-condition="uninterrupted"]')
      .getAttribute("height");
    expect(Number(h)).toBeCloseTo(180 * 0.8, 6);

    // Figure 1a: a point per configuration and condition (tokens on x: the fixture records no cost);
    // Figure 1b: stacked outcome segments (a: switched 5 categories, uninterrupted resolved + not scored; b likewise).
    expect(await page.locator("#chart-cost .cost-point").count()).toBe(4);
    expect(await page.locator("#chart-cost").textContent()).toContain("mean tokens per session");
    expect(await page.locator("#chart-failures rect.fail-bar").count()).toBe(14);
    const subW = await page
      .locator('#chart-failures rect.fail-bar[data-config="0"][data-condition="switch"][data-category="submission"]')
      .getAttribute("width");
    expect(Number(subW)).toBeCloseTo(320 / 10, 6);
    expect(await page.locator("#table-failures tbody tr").count()).toBe(12);
    expect(await page.locator("#table-harness").innerText()).toContain("unknown");

    // Tables and escaping: the label with markup is text, not elements.
    expect(await page.locator("#table-resolution tbody tr").count()).toBe(6);
    expect(await page.locator("#table-resolution").innerText()).toContain("oracle + <b>RCM</b>");
    expect(await page.locator("header b").count()).toBe(0);
    expect(await page.locator("#table-comparison tbody tr").count()).toBe(3);

    // Sessions: 2 configurations × 20 sessions; filter; select one.
    expect(await page.locator("#session-rows tr").count()).toBe(40);
    await page.fill("#session-filter", "t01.switch");
    expect(await page.locator("#session-rows tr").count()).toBe(2);
    await page.locator('#session-rows tr[data-key="0/t01.switch"]').click();
    const blocks = page.locator("#session-timeline rect.tl-block");
    expect(await blocks.count()).toBe(8); // F1 I1 F2 I2 F3 I3 I4 finalization
    expect(await page.locator("#session-timeline path.tl-return").count()).toBe(2);
    const fills = await blocks.evaluateAll((els) => els.map((e) => e.getAttribute("fill")));
    expect(new Set(fills).size).toBe(5); // five workspaces, five colours
    expect(await page.locator("#session-tests tbody tr").count()).toBe(4);
    expect(await page.locator("#session-tests").innerText()).toContain("test_stage_3[<a>]");
    expect(await page.locator("#session-detail").innerText()).toContain("failed stages: 1, 3");
    // The request's text is in its timeline row, built when the row opens (markup kept as text).
    await page.locator('#request-timeline li.req[data-index="0"] .req-head').click();
    expect(await page.locator('#request-timeline li.req[data-index="0"] .req-body').innerText()).toContain('make <Widget> & "quotes" work');

    // Links to the run files, relative to the page (pages/nested/report.html -> ../../a/run/...).
    const hrefs = await page.locator("#session-detail a.file-link").evaluateAll((els) => els.map((e) => e.getAttribute("href")));
    expect(hrefs).toEqual(["../../a/run/sessions/t01.switch/trajectory.jsonl", "../../a/run/sessions/t01.switch/artifact.patch"]);
    for (const href of hrefs) expect(existsSync(resolve(join(root, "pages", "nested"), href!))).toBe(true);

    // Signatures a run without per-request evidence cannot show are marked unavailable.
    expect(await page.locator("#session-detail").innerText()).toMatch(/wrong workspace edits: unavailable/);
    expect(await page.locator("#session-detail").innerText()).toContain("Failure category: implementation");

    // Filter by failure category: the session whose artifact did not apply, in both configurations.
    await page.fill("#session-filter", "");
    await page.selectOption("#session-status", "category:submission");
    expect(await page.locator("#session-rows tr").count()).toBe(2);

    // A session that never ran has no links and no verdict.
    await page.fill("#session-filter", "");
    await page.selectOption("#session-status", "reason:not run");
    expect(await page.locator("#session-rows tr").count()).toBe(2);
    await page.locator("#session-rows tr").first().click();
    expect(await page.locator("#session-detail a.file-link").count()).toBe(0);
    expect(await page.locator("#session-detail").innerText()).toContain("No verdict (not run)");

    await page.locator("#session-rows tr").first().scrollIntoViewIfNeeded();
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const shot = join(OUTPUT_DIR, "report.png");
    rmSync(shot, { force: true });
    await page.fill("#session-filter", "");
    await page.selectOption("#session-status", "");
    await page.locator('#session-rows tr[data-key="1/t03.switch"]').click();
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
    const png = readFileSync(shot);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(statSync(shot).size).toBeGreaterThan(30_000);

    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });
});
