import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Report } from "../report-schema.js";
import { readSessionLog } from "./session-log.js";

/**
 * The session viewer's data for a whole report: per session (key `config index/session id`, the page's
 * keys), its log as gzipped JSON in base64. Each session is its own member so that the page decompresses
 * only the sessions a reader opens (DecompressionStream), and a 400-session page opens as fast as one
 * without the viewer. Reads each trajectory once, one at a time.
 */
export function viewerData(report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  report.configs.forEach((c, ci) => {
    for (const s of c.sessions) {
      if (s.files.trajectory === null) continue;
      const log = readSessionLog(join(c.run_dir, s.files.trajectory));
      if (log) out[`${ci}/${s.id}`] = gzipSync(JSON.stringify(log), { level: 6 }).toString("base64");
    }
  });
  return out;
}
