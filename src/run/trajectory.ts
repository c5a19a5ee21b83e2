import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { trajectoryLineSchema, type TrajectoryLine } from "../formats/trajectory.js";

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
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

/** Reads a trajectory; a last line cut short by a crash is dropped, any other bad line throws. */
export function readTrajectory(file: string): TrajectoryLine[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const out: TrajectoryLine[] = [];
  lines.forEach((text, i) => {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (i === lines.length - 1) return;
      throw new Error(`${file}: line ${i + 1}: ${(e as Error).message}`);
    }
    const parsed = trajectoryLineSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${file}: line ${i + 1}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    out.push(parsed.data);
  });
  return out;
}
