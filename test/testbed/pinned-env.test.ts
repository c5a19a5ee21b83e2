import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/dataset/load.js";
import { materializeRepo, resolveBase } from "../../src/dataset/repo-cache.js";
import { prepareEnvironment } from "../../src/testbed/env-cache.js";
import { tempDir, writeCalcDataset } from "../verify/fixture.js";

/**
 * Pinned environments at set-up: the environment records what it installed (its venv's python and
 * pip freeze, in env.json), and a set-up that declares its Python version must give exactly its pins
 * or is refused in one line. Installs come from this machine's package index (six and iniconfig have
 * no dependencies of their own).
 */
const cache = tempDir("switch-swe-cache-");
const dataset = loadDataset(writeCalcDataset(tempDir()));
const host = execFileSync("python3", ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { encoding: "utf8" }).trim();
const minor = host.split(".").slice(0, 2).join(".");
const venv = `python3 -m venv "$SWITCH_SWE_ENV/venv"`;
const pip = `"$SWITCH_SWE_ENV/venv/bin/python" -m pip install --quiet`;

beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
  // A set-up's private HOME drops the user's pip configuration; a machine's local index is named by the
  // variables a set-up passes through (elsewhere pip uses its default index).
  if (existsSync("/opt/pypi/simple")) process.env.PIP_INDEX_URL = "file:///opt/pypi/simple";
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

async function prepare(setup: string[], python?: string) {
  const repo = await materializeRepo(dataset, "calc");
  const commit = (await resolveBase(repo, "HEAD"))!;
  return prepareEnvironment({
    repo,
    repoIdentity: "local",
    commit,
    setup,
    ...(python !== undefined ? { python } : {}),
    timeoutMs: 300_000,
    log: () => {},
  });
}

describe("a pinned set-up", () => {
  it("gives exactly its pins and records its python and pip freeze beside the set-up", async () => {
    const env = await prepare([venv, `${pip} six==1.17.0`], minor);
    const record = JSON.parse(readFileSync(join(env.dir!, "env.json"), "utf8"));
    expect(record.installed).toEqual({ python: host, packages: ["six==1.17.0"] });
  }, 300_000);

  it("is refused in one line when its venv has another Python minor version", async () => {
    const other = minor === "3.10" ? "3.12" : "3.10";
    await expect(prepare([venv, `${pip} six==1.17.0`], other)).rejects.toThrow(
      new RegExp(
        `^set-up does not give the versions it pins: python ${host.replace(/\./g, "\\.")} \\(${other.replace(".", "\\.")} declared\\)$`,
      ),
    );
  }, 300_000);

  it("is refused when it installs a package it does not pin", async () => {
    const e = await prepare([venv, `${pip} six==1.17.0 iniconfig`], minor).catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/^set-up does not give the versions it pins: installed but not pinned: iniconfig==[0-9.]+$/);
  }, 300_000);

  it("without a declared Python version is not judged, but still records what it installed", async () => {
    const env = await prepare([venv, `${pip} six==1.17.0 iniconfig`]);
    const record = JSON.parse(readFileSync(join(env.dir!, "env.json"), "utf8"));
    expect(record.installed.packages.map((p: string) => p.split("==")[0]).sort()).toEqual(["iniconfig", "six"]);
  }, 300_000);
});
