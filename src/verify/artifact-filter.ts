import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, posix } from "node:path";
import { gitTry } from "../core/git.js";
import { pathMatcher } from "../core/path-globs.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { touchedPaths } from "../dataset/patch-files.js";
import type { RepoSpec } from "../dataset/schema.js";
import type { PatchBlock } from "./split-patch.js";

/**
 * Files that steer the test runner rather than the code under test. They are dropped from every
 * artifact whatever the repository's test rules say: a `conftest.py` or a `sitecustomize.py`
 * could rewrite outcomes, a `pytest.ini` could add a plugin.
 */
export const harnessProtectedGlobs = [
  "**/conftest.py",
  "**/pytest.ini",
  "**/.pytest.ini",
  "**/tox.ini",
  "**/sitecustomize.py",
  "**/usercustomize.py",
  "**/*.pth",
];

const isProtected = pathMatcher(harnessProtectedGlobs);

export interface FilteredArtifact {
  kept: PatchBlock[];
  /** Every path of every dropped block, sorted. */
  dropped: string[];
}

/** Drops the blocks that touch a test file (by the repository's rules or the held-out patch) or a runner file. */
export function dropTestFiles(blocks: readonly PatchBlock[], repo: Pick<RepoSpec, "tests">, testsPatch: string): FilteredArtifact {
  const isTest = testFileMatcher(repo);
  const heldOut = new Set(testsPatch.trim() === "" ? [] : touchedPaths(testsPatch));
  const kept: PatchBlock[] = [];
  const dropped = new Set<string>();
  for (const b of blocks) {
    const names = [b.from, b.to].filter((p): p is string => p !== null);
    if (names.some((p) => isTest(p) || heldOut.has(p) || isProtected(p))) {
      for (const p of names) dropped.add(p);
    } else {
      kept.push(b);
    }
  }
  return { kept, dropped: [...dropped].sort() };
}

/** The pytest section(s) of a pyproject.toml or setup.cfg, as text ("" when there is none). */
export function pytestSection(text: string, file: string): string {
  const headers = posix.basename(file) === "setup.cfg" ? [/^\[tool:pytest\]\s*$/] : [/^\[tool\.pytest(\.ini_options)?\]\s*$/];
  const out: string[] = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) inside = headers.some((h) => h.test(line.trim()));
    if (inside) out.push(line);
  }
  return out.join("\n");
}

async function baseText(checkout: string, file: string): Promise<string> {
  const r = await gitTry(["show", `HEAD:${file}`], { cwd: checkout });
  return r.code === 0 ? r.stdout : "";
}

/**
 * After the artifact is applied: a change to the pytest section of a pyproject.toml or setup.cfg
 * (addopts, plugins, test paths) is undone by restoring the base version of that file. Returns
 * the files restored, which the verdict lists as dropped.
 */
export async function restorePytestConfig(checkout: string, kept: readonly PatchBlock[]): Promise<string[]> {
  const restored: string[] = [];
  for (const b of kept) {
    const file = b.to;
    if (file === null) continue;
    const name = posix.basename(file);
    if (name !== "pyproject.toml" && name !== "setup.cfg") continue;
    const full = join(checkout, file);
    const after = existsSync(full) ? readFileSync(full, "utf8") : "";
    const before = await baseText(checkout, file);
    if (pytestSection(after, file) === pytestSection(before, file)) continue;
    if (before === "" && b.from === null) rmSync(full, { force: true });
    else await gitTry(["checkout", "HEAD", "--", file], { cwd: checkout });
    restored.push(file);
  }
  return restored;
}
