import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

const pending = new Map<string, Promise<void>>();
const made = new Set<string>();

/**
 * A cache directory made once: per process (callers asking while it is being made wait for the same
 * making), and across processes (made in a temporary sibling and renamed into place, so it appears
 * whole or not at all; when another process renamed first, its directory stands). `marker` is a file
 * of the finished directory: once it is gone (`cache clear`), the directory is made again. `make`
 * fills the temporary directory; `inner` is the part of it that becomes `dir` ("" for all of it).
 */
export function cachedDir(dir: string, marker: string, make: (tmp: string) => Promise<void>, inner = ""): Promise<void> {
  let p = pending.get(dir);
  if (!p || (made.has(dir) && !existsSync(join(dir, marker)))) {
    made.delete(dir);
    p = makeDir(dir, marker, make, inner).then(() => {
      made.add(dir);
    });
    pending.set(dir, p);
    p.catch(() => pending.delete(dir));
  }
  return p;
}

async function makeDir(dir: string, marker: string, make: (tmp: string) => Promise<void>, inner: string): Promise<void> {
  if (existsSync(join(dir, marker))) return;
  const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  mkdirSync(tmp, { recursive: true });
  try {
    await make(tmp);
    try {
      renameSync(join(tmp, inner), dir);
    } catch (e) {
      if (!existsSync(join(dir, marker))) throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
