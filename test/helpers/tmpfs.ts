import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Small tmpfs mounts for full-disk tests. Mounting needs root (CI runs as root); elsewhere the tests
 * that need one are skipped with the reason below.
 */
function probe(): string | null {
  if (process.getuid?.() !== 0) return "full-disk tests need root to mount a tmpfs (skipped: not root)";
  const dir = mkdtempSync(join(tmpdir(), "switch-swe-tmpfs-probe-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `full-disk tests need to mount a tmpfs (skipped: ${(r.stderr || r.error?.message || "mount failed").trim()})`;
  }
  spawnSync("umount", [dir]);
  rmSync(dir, { recursive: true, force: true });
  return null;
}

/** Why tmpfs tests cannot run here, or null when they can. */
export const tmpfsUnavailable: string | null = probe();
if (tmpfsUnavailable) console.warn(tmpfsUnavailable);

/** Mounts a tmpfs of `sizeKb` at a new directory under `parent` and returns it. */
export function mountTmpfs(parent: string, sizeKb: number): string {
  const dir = join(parent, `tmpfs-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k`, "tmpfs", dir]);
  return dir;
}

export function unmountTmpfs(dir: string): void {
  spawnSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
}

/** Fills the file system of `dir` to the last byte with `dir/<name>`; returns the filler's path. */
export function fillDisk(dir: string, name = "filler"): string {
  const file = join(dir, name);
  const chunk = Buffer.alloc(64 * 1024, 120);
  writeFileSync(file, "");
  spawnSync("sh", ["-c", `cat /dev/zero > '${file}' 2>/dev/null; true`]);
  // Top up the last partial block with small writes.
  for (const size of [4096, 512, 1]) {
    try {
      for (;;) writeFileSync(file, chunk.subarray(0, size), { flag: "a" });
    } catch {
      // full at this size
    }
  }
  return file;
}
