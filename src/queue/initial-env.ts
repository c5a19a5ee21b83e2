import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/**
 * Overwrites the entries of the named variables in this process's initial environment block, the one
 * /proc/<pid>/environ shows: removing a variable from process.env keeps it out of children, but that
 * block still holds it, readable by any process of the same user (an agent a worker runs with
 * `--allow-unconfined`). Linux only, best effort: returns how many entries it overwrote (0 where
 * /proc/self/mem cannot be written).
 */
export function wipeInitialEnvironment(names: readonly string[]): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces), from field 3; env_start and env_end are 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 1 << 24) return 0;
    const fd = openSync("/proc/self/mem", "r+");
    try {
      const block = Buffer.alloc(end - start);
      readSync(fd, block, 0, block.length, start);
      let wiped = 0;
      for (const name of names) {
        for (let at = 0; at < block.length;) {
          const i = block.indexOf(`${name}=`, at);
          if (i < 0) break;
          const value = i + name.length + 1;
          const stop = block.indexOf(0, value) < 0 ? block.length : block.indexOf(0, value);
          // Only a whole entry (at the block's start or after a NUL), never a value that contains the text.
          if (i === 0 || block[i - 1] === 0) {
            // The whole entry, its name too: nothing there says what the process was given.
            block.fill(0x78, i, stop);
            writeSync(fd, block, i, stop - i, start + i);
            wiped++;
          }
          at = stop;
        }
      }
      return wiped;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}
