import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import type { PatchBlock } from "../core/patch-blocks.js";

/**
 * Why a path named by a patch may not be written, or null when it is an ordinary path inside the
 * repository: absolute paths, `..` segments and anything under a `.git` directory are refused.
 */
export function unsafePathReason(path: string): string | null {
  if (path === "") return "empty path";
  if (path.includes("\0")) return `${JSON.stringify(path)}: NUL byte in path`;
  if (path.startsWith("/") || isAbsolute(path)) return `${path}: absolute path`;
  const segments = path.split("/");
  if (segments.includes("..")) return `${path}: path leaves the repository (..)`;
  if (segments.some((s) => s.toLowerCase() === ".git")) return `${path}: path inside .git/`;
  return null;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** realpath of a path that may not exist yet: the longest existing ancestor is resolved, the rest appended. */
function realpathLenient(p: string, depth = 0): string {
  if (depth > 40) return p;
  let cur = resolve(p);
  const rest: string[] = [];
  for (;;) {
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      st = null;
    }
    if (st?.isSymbolicLink()) {
      // A dangling link: follow it by hand.
      const target = readlinkSync(cur);
      const next = isAbsolute(target) ? target : resolve(dirname(cur), target);
      return realpathLenient(join(next, ...rest.reverse()), depth + 1);
    }
    if (st) {
      try {
        return join(realpathSync(cur), ...rest.reverse());
      } catch {
        return join(cur, ...rest.reverse());
      }
    }
    const parent = dirname(cur);
    if (parent === cur) return join(cur, ...rest.reverse());
    rest.push(cur.slice(parent.length).replace(/^[/\\]/, ""));
    cur = parent;
  }
}

/** Static checks of every path a patch names, and of the targets of the symbolic links it creates. */
export function checkPatchPaths(blocks: readonly PatchBlock[]): string | null {
  for (const b of blocks) {
    for (const p of b.paths) {
      const why = unsafePathReason(p);
      if (why) return why;
    }
    if (b.symlinkTarget !== undefined && b.to !== null) {
      const t = b.symlinkTarget;
      if (t.startsWith("/") || isAbsolute(t)) return `${b.to}: symbolic link to ${t} leads outside the repository`;
      const joined = posix.normalize(posix.join(posix.dirname(b.to), t));
      if (joined === ".." || joined.startsWith("../")) return `${b.to}: symbolic link to ${t} leads outside the repository`;
    }
  }
  return null;
}

/**
 * Checks the patch against the checkout it will be applied to: no path may be written through a
 * symbolic link (of the base tree, or one the patch itself creates) that leads out of the checkout.
 */
export function checkSymlinkEscapes(checkout: string, blocks: readonly PatchBlock[]): string | null {
  const root = realpathSync(checkout);
  const created = new Map<string, string>();
  for (const b of blocks) if (b.symlinkTarget !== undefined && b.to !== null) created.set(b.to, b.symlinkTarget);

  for (const [link, target] of created) {
    const resolved = realpathLenient(resolve(root, posix.dirname(link), target));
    if (!inside(root, resolved)) return `${link}: symbolic link to ${target} leads outside the repository`;
  }
  for (const b of blocks) {
    for (const p of b.paths) {
      const parts = p.split("/");
      for (let k = 1; k <= parts.length; k++) {
        const prefix = parts.slice(0, k).join("/");
        const last = k === parts.length;
        const createdTarget = created.get(prefix);
        if (createdTarget !== undefined && !last) {
          const resolved = realpathLenient(resolve(root, posix.dirname(prefix), createdTarget));
          if (!inside(root, resolved))
            return `${p}: written through the symbolic link ${prefix} -> ${createdTarget}, which leads outside the repository`;
          continue;
        }
        const full = join(root, prefix);
        let st;
        try {
          st = lstatSync(full);
        } catch {
          break;
        }
        if (!st.isSymbolicLink()) continue;
        const resolved = realpathLenient(full);
        if (inside(root, resolved)) continue;
        // Replacing or deleting the link itself is fine; writing a file through it is not.
        if (last && (b.symlinkTarget !== undefined || b.deleted)) continue;
        return `${p}: ${prefix} is a symbolic link to ${readlinkSync(full)}, which leads outside the repository`;
      }
    }
  }
  return null;
}

/** After applying: every path the patch wrote must still resolve inside the checkout. */
export function checkAppliedPaths(checkout: string, blocks: readonly PatchBlock[]): string | null {
  const root = realpathSync(checkout);
  for (const b of blocks) {
    if (b.to === null) continue;
    const full = join(root, b.to);
    if (!inside(root, realpathLenient(dirname(full)))) return `${b.to}: written outside the repository`;
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (st?.isSymbolicLink() && !inside(root, realpathLenient(full))) {
      return `${b.to}: symbolic link to ${readlinkSync(full)} leads outside the repository`;
    }
  }
  return null;
}
