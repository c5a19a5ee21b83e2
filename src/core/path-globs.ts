import picomatch from "picomatch";

/**
 * The project's one glob dialect for repository paths (posix, relative to the root): picomatch with
 * dotfiles matched. `**` spans directories (`**\/x` also matches `x` at the root), `*` stays within one,
 * `{a,b}` alternates. Every "paths to leave out" list (artifact excludes, test files, runner files) and
 * every source rule is written in it.
 */
export function pathMatcher(globs: readonly string[]): (path: string) => boolean {
  return picomatch([...globs], { dot: true });
}
