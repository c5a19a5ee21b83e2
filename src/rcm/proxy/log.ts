import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ProxyLogEntry } from "../../formats/rcm-proxy-log.js";

/** Appends one line; a log that cannot be written never stops a request. */
export function appendProxyLog(file: string | undefined, entry: ProxyLogEntry): void {
  if (!file) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // the request matters more than its log line
  }
}
