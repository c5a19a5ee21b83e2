import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "./process.js";

/** The three directories of one overlay mount: a read-only lower, the private upper and overlayfs's work dir. */
export interface OverlayLayers {
  lower: string;
  upper: string;
  work: string;
}

/**
 * Options that keep the upper layer plain: every changed file is whole in it (no metacopy), a renamed
 * directory is a copy (no redirect xattr, so `rename(2)` of a base directory gives EXDEV and `mv` copies),
 * no inode index. Reading only the upper layer then tells what changed (src/run/overlay-changes.ts).
 */
const plainUpper = "redirect_dir=off,metacopy=off,index=off";

const deadlineMs = 30_000;

/** Mounts an overlay of `layers` at `target` (kernel overlayfs: needs CAP_SYS_ADMIN where the mount is made). */
export async function mountOverlay(layers: OverlayLayers, target: string): Promise<void> {
  // The layers are named by descriptors: the kernel shows the option string in every mount table
  // (a sandbox's /proc/self/mountinfo included), which must not name the cache, the run or the base commit.
  const options = `lowerdir=/proc/self/fd/5,upperdir=/proc/self/fd/6,workdir=/proc/self/fd/7,${plainUpper}`;
  const script = `exec mount -t overlay overlay -o ${options} "$0" 5<"$1" 6<"$2" 7<"$3"`;
  const r = await runProcess("/bin/sh", ["-c", script, target, layers.lower, layers.upper, layers.work], { timeoutMs: deadlineMs });
  if (r.code !== 0) throw new Error(`mount -t overlay: ${(r.spawnError ?? r.stderr).trim().split("\n")[0] ?? `exit ${String(r.code)}`}`);
}

/** Unmounts `targets` in one process, in order (lazily: a process still inside cannot keep the work directory from being removed). */
export async function unmount(...targets: string[]): Promise<void> {
  if (targets.length === 0) return;
  const r = await runProcess("umount", ["-l", ...targets], { timeoutMs: deadlineMs });
  if (r.code !== 0) throw new Error(`umount ${targets.join(" ")}: ${(r.spawnError ?? r.stderr).trim().split("\n")[0] ?? ""}`);
}

/** `\040`-style escapes of /proc/self/mountinfo decoded. */
export function decodeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Mount points at or under `dir` in this process's mount table, deepest first (the order to unmount them). */
export function mountsUnder(dir: string, mountinfo = readFileSync("/proc/self/mountinfo", "utf8")): string[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  return mountinfo
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((f): f is string => f !== undefined)
    .map(decodeMountPath)
    .filter((p) => p === dir || p.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

let probed: Promise<string | null> | undefined;

/**
 * Whether this process can mount overlays in `scratchRoot` (null) or why not: one real mount of a
 * one-file overlay, read through and unmounted, once per process. Without the capability to mount
 * (an unprivileged user), overlayfs missing from the kernel, or a file system overlayfs refuses as an
 * upper layer, the answer is the error.
 */
export function overlayUnavailable(scratchRoot: string): Promise<string | null> {
  probed ??= probe(scratchRoot);
  return probed;
}

async function probe(scratchRoot: string): Promise<string | null> {
  let dir: string;
  try {
    mkdirSync(scratchRoot, { recursive: true });
    dir = mkdtempSync(join(scratchRoot, "overlay-probe-"));
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const layers = { lower: join(dir, "l"), upper: join(dir, "u"), work: join(dir, "w") };
  const target = join(dir, "m");
  try {
    for (const d of [...Object.values(layers), target]) mkdirSync(d);
    writeFileSync(join(layers.lower, "f"), "base\n");
    await mountOverlay(layers, target);
    try {
      writeFileSync(join(target, "f"), "changed\n");
      if (readFileSync(join(layers.lower, "f"), "utf8") !== "base\n") return "overlay: a write reached the lower layer";
      if (readFileSync(join(layers.upper, "f"), "utf8") !== "changed\n") return "overlay: a write did not reach the upper layer";
    } finally {
      await unmount(target);
    }
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
