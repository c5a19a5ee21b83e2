import { readFileSync } from "node:fs";
import { trajectoryLineSchema, type TrajectoryLine } from "./trajectory.js";

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
