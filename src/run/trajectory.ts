import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { TrajectoryLine } from "../formats/trajectory.js";
import { timedSync } from "./phase-timing.js";

/**
 * Appends trajectory lines as they happen (one JSON object per line), so a run killed at any moment
 * leaves everything up to the last event on disk.
 */
export class TrajectoryWriter {
  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, "");
  }

  write(line: TrajectoryLine): void {
    timedSync("trajectory", () => appendFileSync(this.file, `${JSON.stringify(line)}\n`));
  }
}
