import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir("switch-swe-reviewed-by-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const shipped = join(packageRoot, "datasets", "real", "ipython", "manifest.json");

describe("a stage's reviewed_by record", () => {
  it("loads when present (older manifests load without it); an empty reader is one line, exit 1", () => {
    const m = JSON.parse(readFileSync(shipped, "utf8"));
    m.tasks[0].stages[0].reviewed_by = { reader: "bob", note: "asks for what the stage's tests check; gives nothing away" };
    const file = join(root, "reviewed.json");
    writeFileSync(file, JSON.stringify(m));
    const ok = cli(["datasets", "check", file]);
    expect(ok.stdout + ok.stderr).toBe("1 of 1 manifest(s) pass\n");
    expect(ok.code).toBe(0);
    m.tasks[0].stages[1].reviewed_by = { reader: " ", note: "fine" };
    writeFileSync(file, JSON.stringify(m));
    const bad = cli(["datasets", "check", file]);
    expect(bad.stdout.split("\n")[0]).toMatch(new RegExp(`^${file}: tasks\\[0\\]\\.stages\\[1\\]\\.reviewed_by\\.reader: .+`));
    expect(bad.code).toBe(1);
  });
});
