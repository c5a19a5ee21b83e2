import { resolve } from "node:path";

/** Whether a repository source is remote (`https://…`, `ssh://…`, `git@host:path`) rather than a local path. */
export function isRemoteSource(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[^/\s]+@[^/\s]+:/.test(source);
}

/** A local source path is relative to the dataset directory; a remote one is kept as it is. */
export function resolveSource(root: string, source: string): string {
  return isRemoteSource(source) ? source : resolve(root, source);
}
