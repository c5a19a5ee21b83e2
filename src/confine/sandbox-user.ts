import { execFileSync } from "node:child_process";
import { existsSync, lchownSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The host user every sandbox process runs as when the harness runs as root. Without it a sandbox
 * started by root is host uid 0 behind its user namespace: kernel checks on "uid 0" still pass
 * (`/proc/sys` accepts `kernel.core_pattern`, which the kernel then runs as root outside every
 * namespace) and files made inside belong to root. So, as root, bubblewrap's command is dropped to
 * this id (setpriv, before it starts): an id no account of the machine holds, high above the ranges
 * distributions hand out (users from 1000, subordinate ranges from 100000), shared by no other
 * program. The files a sandbox must write (workspaces, HOME, the verifier's checkout and scratch,
 * the egress sockets) are handed to it first; host-side git reads those trees with
 * `safe.directory=*` (src/core/git.ts). A caller that is not root is already unprivileged: its
 * sandboxes keep its own id behind the user namespace, and nothing is handed over.
 */
export const sandboxHostId = 2_000_000_000;

/** Where setpriv is (util-linux); without it a root harness cannot drop its sandboxes' ids. */
export const setprivPath = "/usr/bin/setpriv";

/** The host uid/gid sandboxes run as, or null when they keep the caller's (not root, or no setpriv). */
export function sandboxOwner(): number | null {
  return process.getuid?.() === 0 && existsSync(setprivPath) ? sandboxHostId : null;
}

/** The command that drops to the sandbox user, every capability and the bounding set before `argv`. */
export function dropArgv(id: number, argv: readonly string[]): string[] {
  return [setprivPath, `--reuid=${id}`, `--regid=${id}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--", ...argv];
}

/**
 * Hands `paths` (whole trees, symbolic links themselves, never their targets) to the sandbox user, so
 * that a sandbox can write them. Nothing when sandboxes keep the caller's id. `onlyIfForeign`: a tree
 * whose top already belongs to it is left as is (a copy-on-write workspace, whose every file would be
 * copied up by a recursive chown).
 */
export function giveToSandbox(paths: readonly string[], onlyIfForeign = false): void {
  const id = sandboxOwner();
  if (id === null) return;
  const todo = paths.filter((p) => existsSync(p) && !(onlyIfForeign && lstatSync(p).uid === id));
  if (todo.length === 0) return;
  execFileSync("chown", ["-R", "-P", "--no-dereference", `${id}:${id}`, "--", ...todo], { stdio: "pipe", timeout: 600_000 });
}

/**
 * The entries of small trees (HOME, state: handed over before every request) that are not yet the
 * sandbox user's, handed to it in this process: no chown process per request, nothing written when
 * nothing changed. Symbolic links themselves, never followed.
 */
export function giveForeignToSandbox(dirs: readonly string[]): void {
  const id = sandboxOwner();
  if (id === null) return;
  const walk = (p: string): void => {
    const st = lstatSync(p);
    if (st.uid !== id || st.gid !== id) lchownSync(p, id, id);
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  for (const d of dirs) if (existsSync(d)) walk(d);
}

/** One file or directory (not its contents) handed to the sandbox user, e.g. a socket it must connect to. */
export function giveOneToSandbox(path: string): void {
  const id = sandboxOwner();
  if (id !== null) lchownSync(path, id, id);
}
