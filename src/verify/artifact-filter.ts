import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { bedGit, type BedGit } from "../testbed/bed-git.js";
import { pathMatcher } from "../core/path-globs.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { touchedPaths } from "../dataset/patch-files.js";
import type { RepoSpec } from "../dataset/schema.js";
import { pytestSections } from "../testbed/pytest-runner.js";
import { stdlibModuleNames } from "./python-stdlib.js";
import type { PatchBlock } from "../core/patch-blocks.js";

/**
 * Files that steer the test runner rather than the code under test (class 2 of the threat model in
 * docs/verification.md). They are dropped from every artifact, at any depth, whatever the repository
 * says: configuration pytest reads, `conftest.py`, start-up hooks of the interpreter, distribution
 * metadata that registers entry-point plugins, compiled modules, and modules named like the runner.
 */
export const harnessProtectedGlobs = [
  "**/conftest.py",
  "**/pytest.ini",
  "**/.pytest.ini",
  "**/pytest.toml",
  "**/.pytest.toml",
  "**/tox.ini",
  "**/sitecustomize.py",
  "**/usercustomize.py",
  "**/*.pth",
  "**/*.dist-info/**",
  "**/*.egg-info/**",
  "**/*.egg-link",
  "**/__pycache__/**",
  "**/*.pyc",
  "**/*.pyo",
];

const isProtected = pathMatcher(harnessProtectedGlobs);

/** Module names of the runner and what it imports; a file or directory of that name could shadow it. */
const runnerModules = new Set(["pytest", "_pytest", "pluggy", "iniconfig", "py", "packaging", "exceptiongroup", "tomli", "pygments", "colorama"]);
const moduleFile = /^([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z0-9_-]+)*\.(py|pyc|pyo|pyd|so)$/;

/** Why a path is a runner channel, or null. */
export function runnerChannel(path: string, created: boolean): string | null {
  if (isProtected(path)) return "configures or hooks the runner";
  const segs = path.split("/");
  const file = segs[segs.length - 1]!;
  const stem = moduleFile.exec(file)?.[1];
  if (segs.slice(0, -1).some((d) => runnerModules.has(d)) || (stem !== undefined && runnerModules.has(stem))) return "shadows the runner's modules";
  if (created) {
    const top = segs[0] === "src" && segs.length > 1 ? segs.slice(1) : segs;
    const name = top.length > 1 ? top[0]! : (moduleFile.exec(top[0]!)?.[1] ?? "");
    if (stdlibModuleNames.has(name)) return "shadows a standard library module";
  }
  return null;
}

export interface FilteredArtifact {
  kept: PatchBlock[];
  /** Every path of every dropped block, sorted. */
  dropped: string[];
  /** The dropped paths that were runner channels, with why (`path: reason`). */
  runnerChannels: string[];
}

/** Drops the blocks that touch a test file (by the repository's rules or the held-out patch) or a runner channel. */
export function dropTestFiles(blocks: readonly PatchBlock[], repo: Pick<RepoSpec, "tests">, testsPatch: string): FilteredArtifact {
  const isTest = testFileMatcher(repo);
  const heldOut = new Set(testsPatch.trim() === "" ? [] : touchedPaths(testsPatch));
  const kept: PatchBlock[] = [];
  const dropped = new Set<string>();
  const channels = new Set<string>();
  for (const b of blocks) {
    const names = [b.from, b.to].filter((p): p is string => p !== null);
    const why = names.map((p) => [p, runnerChannel(p, b.from === null)] as const).filter(([, r]) => r !== null);
    for (const [p, r] of why) channels.add(`${p}: ${r}`);
    if (why.length > 0 || names.some((p) => isTest(p) || heldOut.has(p))) {
      for (const p of names) dropped.add(p);
    } else {
      kept.push(b);
    }
  }
  return { kept, dropped: [...dropped].sort(), runnerChannels: [...channels].sort() };
}

async function baseText(tree: BedGit, file: string): Promise<string | null> {
  const r = await bedGit(tree, ["show", `HEAD:${file}`]);
  return r.code === 0 ? r.stdout : null;
}

/**
 * After the artifact is applied: where a file with other uses also configures pytest
 * (`pyproject.toml`, `setup.cfg`), pytest's own parse of it is compared with the parse of the base
 * version (decoy headers, dotted keys, inline tables and multi-line strings cannot hide an
 * `addopts = -p plugin`). A changed, added or unparsable pytest configuration is undone by restoring
 * the base version. Returns the files restored, which the verdict lists as dropped.
 */
export async function restorePytestConfig(tree: BedGit, kept: readonly PatchBlock[], python: string, scratch: string): Promise<string[]> {
  const files = [...new Set(kept.map((b) => b.to).filter((f): f is string => f !== null && /^(pyproject\.toml|setup\.cfg)$/.test(posix.basename(f))))];
  if (files.length === 0) return [];
  const bases = new Map<string, string | null>();
  const compare: string[] = [];
  for (const [i, file] of files.entries()) {
    const before = await baseText(tree, file);
    bases.set(file, before);
    const copy = join(scratch, `base-config-${i}`, posix.basename(file));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, before ?? "");
    compare.push(join(tree.workTree, file), copy);
  }
  let parsed: Map<string, string>;
  try {
    parsed = await pytestSections(python, compare);
  } catch (e) {
    // Whose failure is it? The base versions alone tell: if pytest reads them, the artifact's files
    // (a configuration too large or too odd to read back) are the artifact's problem, not the verifier's.
    await pytestSections(python, compare.filter((_, i) => i % 2 === 1));
    parsed = new Map(compare.map((f, i) => [f, i % 2 === 0 ? JSON.stringify({ unparsable: (e as Error).message.slice(0, 300) }) : "null"]));
  }
  const restored: string[] = [];
  for (const [i, file] of files.entries()) {
    const after = parsed.get(compare[2 * i]!)!;
    const before = bases.get(file) === null ? "null" : parsed.get(compare[2 * i + 1]!)!;
    if (after === before && !after.includes("unparsable")) continue;
    if (bases.get(file) === null) rmSync(join(tree.workTree, file), { force: true });
    else await bedGit(tree, ["checkout", "HEAD", "--", file]);
    restored.push(file);
  }
  return restored;
}
