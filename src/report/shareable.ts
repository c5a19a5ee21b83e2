import { basename, isAbsolute } from "node:path";
import { replacePaths } from "../core/scrub-paths.js";
import type { Report } from "./report-schema.js";

/**
 * The report as it may leave the machine: every absolute path it holds (run directories, the dataset, the
 * sessions file, and warnings that quote them) becomes the directory's or file's name.
 * The in-memory report keeps the real paths: the html renderer still reads trajectories through them.
 */
export function shareableReport(report: Report): Report {
  const names = new Map<string, string>();
  for (const c of report.configs) {
    for (const p of [c.run_dir, c.dataset.path, c.sessions_file.path]) {
      if (p !== null && isAbsolute(p)) names.set(p.replace(/\/+$/, ""), basename(p));
    }
  }
  return replacePaths(report, names);
}
