import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../verify/fixture.js";

/**
 * The shipped real manifests, materialized from local mirrors of their repositories. CI has no
 * network and no mirrors: set SWITCH_SWE_REAL_MIRRORS to a directory holding `<owner>+<name>/repo`
 * (or `<owner>+<name>`) bare mirrors of the manifests' GitHub repositories to run these.
 */
const mirrors = process.env.SWITCH_SWE_REAL_MIRRORS;
const realDir = join(packageRoot, "datasets", "real");
const names = existsSync(realDir) ? readdirSync(realDir).filter((n) => existsSync(join(realDir, n, "manifest.json"))).sort() : [];

function mirrorOf(url: string): string | null {
  const m = /^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)$/.exec(url);
  if (!m || !mirrors) return null;
  const dir = join(mirrors, `${m[1]}+${m[2]}`);
  return [join(dir, "repo"), dir].find((d) => existsSync(join(d, "HEAD")) || existsSync(join(d, ".git"))) ?? null;
}

const skipWhy = mirrors ? null : "SWITCH_SWE_REAL_MIRRORS is not set: the real manifests need local mirrors of their repositories (CI has neither network nor mirrors)";
const root = tempDir("switch-swe-real-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };

describe("shipped real manifests, materialized from mirrors", () => {
  it.for(names)("%s: materializes byte-identically (every digest matches) and validates", { timeout: 600_000 }, (name, ctx) => {
    if (skipWhy) return ctx.skip(skipWhy);
    const file = join(realDir, name, "manifest.json");
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { repos: Record<string, { git: string }>; tasks: unknown[] };
    const repoArgs = Object.entries(manifest.repos).flatMap(([repo, r]) => {
      const mirror = mirrorOf(r.git);
      if (!mirror) return ctx.skip(`no mirror of ${r.git} under ${mirrors}`);
      return ["--repo", `${repo}=${mirror}`];
    });
    const out = join(root, name);
    const m = cli(["datasets", "materialize", file, "--out", out, ...repoArgs], { env });
    expect(m.stderr).toBe("");
    expect(m.stdout).toBe(`${manifest.tasks.length} task(s) materialized into ${out}; every digest matches\n`);
    expect(m.code).toBe(0);
    const v = cli(["tasks", "validate", out], { env });
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });
});
