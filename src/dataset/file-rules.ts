import { pathMatcher } from "../core/path-globs.js";
import type { RepoSpec } from "./schema.js";

const codeExtensions = [
  "py",
  "pyx",
  "pyi",
  "js",
  "mjs",
  "cjs",
  "jsx",
  "ts",
  "tsx",
  "go",
  "rs",
  "java",
  "kt",
  "scala",
  "c",
  "h",
  "cc",
  "cpp",
  "hpp",
  "cs",
  "rb",
  "php",
  "swift",
  "m",
  "lua",
  "sh",
];

export const defaultSourceInclude = [`**/*.{${codeExtensions.join(",")}}`];

export const defaultTestGlobs = [
  "**/test/**",
  "**/tests/**",
  "**/testing/**",
  "**/__tests__/**",
  "**/test_*.py",
  "**/*_test.py",
  "**/*_tests.py",
  "**/conftest.py",
  "**/*.test.{js,ts,jsx,tsx,mjs}",
  "**/*.spec.{js,ts,jsx,tsx,mjs}",
  "**/*_test.go",
];

export const defaultSourceExclude = [
  ...defaultTestGlobs,
  "**/doc/**",
  "**/docs/**",
  "**/example/**",
  "**/examples/**",
  "**/bench/**",
  "**/benches/**",
  "**/benchmark/**",
  "**/benchmarks/**",
  "**/setup.py",
  "**/noxfile.py",
];

const sourceMatchers = new WeakMap<object, (path: string) => boolean>();

/** A predicate for "this path is source" under the repository's rules (or the defaults). */
export function sourceMatcher(repo: Pick<RepoSpec, "source">): (path: string) => boolean {
  // Compiling globs dominates when thousands of tasks share a repository: compile once per spec.
  const cached = sourceMatchers.get(repo);
  if (cached) return cached;
  const include = pathMatcher(repo.source?.include ?? defaultSourceInclude);
  const exclude = pathMatcher(repo.source?.exclude ?? defaultSourceExclude);
  const matcher = (path: string) => include(path) && !exclude(path);
  sourceMatchers.set(repo, matcher);
  return matcher;
}

/** A predicate for "the verifier treats this path as a test file". */
export function testFileMatcher(repo: Pick<RepoSpec, "tests">): (path: string) => boolean {
  return pathMatcher(repo.tests ?? defaultTestGlobs);
}
