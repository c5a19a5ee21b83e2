import { basename, isAbsolute } from "node:path";
import type { Report } from "./report-schema.js";

/**
 * The report as it may leave the machine: every absolute path it holds (run directories, the dataset, the
 * sessions file, and warnings that quote them) becomes the directory's or file's name, so a shared page or
 * JSON document does not carry the layout (user names, mount points) of the machine that made it.
 * The in-memory report keeps the real paths: the html renderer still reads trajectories through them.
 */
export function shareableReport(report: Report): Report {
  const names = new Map<string, string>();
  for (const c of report.configs) {
    for (const p of [c.run_dir, c.dataset.path, c.sessions_file.path]) {
      if (p !== null && isAbsolute(p)) names.set(p.replace(/\/+$/, ""), basename(p));
    }
  }
  // Longest first, so a run directory inside another path is replaced whole.
  const order = [...names.keys()].sort((a, b) => b.length - a.length);
  const scrub = (s: string): string => order.reduce((acc, p) => acc.split(p).join(names.get(p)!), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(report) as Report;
}
