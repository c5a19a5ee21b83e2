import { existsSync, statSync } from "node:fs";
import { inputError } from "../core/errors.js";
import { runFiles } from "./run-layout.js";

/**
 * The one wording, for every command that reads a run (report, compare, verify, export, rcm eval,
 * handoff from-run), of a path that is not a run directory: `DIR: not a run directory (why)`.
 * `sessions`: the command needs recorded sessions too (what `run` writes under sessions/).
 */
export function assertRunDir(dir: string, need: { sessions?: boolean } = {}): void {
  const why = !existsSync(dir)
    ? "no such directory"
    : !statSync(dir).isDirectory()
      ? "not a directory"
      : !existsSync(runFiles.config(dir))
        ? "no run.json: a run directory is what `switch-swe run --out` writes"
        : need.sessions && !existsSync(runFiles.sessionDir(dir, ""))
          ? "no sessions/: no session of this run has started"
          : null;
  if (why !== null) throw inputError(dir, "", `not a run directory (${why})`);
}
