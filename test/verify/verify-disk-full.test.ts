import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { fillDisk, mountTmpfs, tmpfsUnavailable, unmountTmpfs } from "../helpers/tmpfs.js";
import { tempDir, writeCalcDataset, writeRunDir } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
let root = "";
let disk = "";
let runDir = "";
const sessions = ["fix-add.base", "fix-add.switch"];

beforeAll(() => {
  if (tmpfsUnavailable) return;
  root = writeCalcDataset(tempDir(), { tasks: [{ id: "fix-add" }] });
  disk = mountTmpfs(root, 1024);
  runDir = join(disk, "run");
  const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
  writeRunDir(runDir, root, { "fix-add.base": reference, "fix-add.switch": "" });
});
afterAll(() => {
  if (disk) unmountTmpfs(disk);
  for (const d of [cache, root]) if (d) rmSync(d, { recursive: true, force: true });
});

const files = () =>
  Object.fromEntries(
    sessions.flatMap((s) => ["verdict.json", "verify.log"].map((f) => [`${s}/${f}`, readFileSync(join(runDir, "sessions", s, f), "utf8")])),
  );

describe.skipIf(tmpfsUnavailable !== null || missingTool)("a full disk during `verify`", { timeout: 600_000 }, () => {
  it("stops with one line and exit 4, keeps every existing verdict and log intact, and a later verify completes", () => {
    const env = { SWITCH_SWE_CACHE: cache };
    const first = cli(["verify", runDir], { env });
    expect(first.code).toBe(0);
    const before = files();
    expect(JSON.parse(before["fix-add.base/verdict.json"]!)).toMatchObject({ resolved: true });

    const filler = fillDisk(disk);
    const full = cli(["verify", runDir, "--force"], { env });
    expect(full.code).toBe(4);
    const lines = full.stderr.trim().split("\n");
    expect(lines, full.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^switch-swe: ${runDir}: the disk is full \\(.*\\); stopped at session fix-add\\.(base|switch)`));
    expect(lines[0]).toContain(`switch-swe verify ${runDir}`);
    expect(full.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(files()).toEqual(before);
    for (const s of sessions)
      expect(readdirSync(join(runDir, "sessions", s)).sort()).toEqual(["artifact.patch", "verdict.json", "verify.log"]);

    rmSync(filler);
    const again = cli(["verify", runDir, "--force"], { env });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    const after = files();
    expect(JSON.parse(after["fix-add.base/verdict.json"]!)).toMatchObject({ resolved: true });
    expect(after["fix-add.base/verdict.json"]).not.toBe(before["fix-add.base/verdict.json"]);
  });
});
