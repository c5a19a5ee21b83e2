import { pathMatcher } from "../core/path-globs.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { touchedPaths } from "../dataset/patch-files.js";
import type { RepoSpec } from "../dataset/schema.js";
import type { TestRunner } from "../testbed/test-runner.js";
import { stdlibModuleNames } from "./python-stdlib.js";
import type { PatchBlock } from "../core/patch-blocks.js";

/**
 * Files that steer the test runner rather than the code under test (class 2 of the threat model in
 * docs/verification.md). They are dropped from every artifact, at any depth, whatever the repository
 * says: start-up hooks of the interpreter, distribution metadata that registers entry-point plugins,
 * compiled modules; and what the test runner names its own (its configuration, its modules: TestRunner.channel).
 */
const harnessProtectedGlobs = [
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

const moduleFile = /^([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z0-9_-]+)*\.(py|pyc|pyo|pyd|so)$/;

/** Why a path is a runner channel (the interpreter's, or `runner`'s own for `command`), or null. */
export function runnerChannel(path: string, created: boolean, runner: Pick<TestRunner, "channel">, command: string): string | null {
  if (isProtected(path)) return "configures or hooks the runner";
  const own = runner.channel(path, command);
  if (own !== null) return own;
  const segs = path.split("/");
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
export function dropTestFiles(
  blocks: readonly PatchBlock[],
  repo: Pick<RepoSpec, "tests">,
  testsPatch: string,
  runner: { runner: Pick<TestRunner, "channel">; command: string },
): FilteredArtifact {
  const isTest = testFileMatcher(repo);
  const heldOut = new Set(testsPatch.trim() === "" ? [] : touchedPaths(testsPatch));
  const kept: PatchBlock[] = [];
  const dropped = new Set<string>();
  const channels = new Set<string>();
  for (const b of blocks) {
    const names = [b.from, b.to].filter((p): p is string => p !== null);
    const why = names
      .map((p) => [p, runnerChannel(p, b.from === null, runner.runner, runner.command)] as const)
      .filter(([, r]) => r !== null);
    for (const [p, r] of why) channels.add(`${p}: ${r}`);
    if (why.length > 0 || names.some((p) => isTest(p) || heldOut.has(p))) {
      for (const p of names) dropped.add(p);
    } else {
      kept.push(b);
    }
  }
  return { kept, dropped: [...dropped].sort(), runnerChannels: [...channels].sort() };
}
