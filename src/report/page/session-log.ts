/** The viewer's per-session logs: gzipped JSON in the inline block, decompressed on demand and kept. */
import type { SessionLog } from "../viewer/session-log-types.js";

let packed: Record<string, string> | null = null;
const logs = new Map<string, Promise<SessionLog | null>>();

async function unpack(b64: string): Promise<SessionLog> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text()) as SessionLog;
}

/** The log of session `key` (null: the run has no trajectory for it). */
export function sessionLog(key: string): Promise<SessionLog | null> {
  let p = logs.get(key);
  if (!p) {
    // Parsed on first use: the page opens without reading the block.
    packed ??= JSON.parse(document.getElementById("viewer-data")?.textContent ?? "{}") as Record<string, string>;
    const b64 = packed[key];
    p = b64 === undefined ? Promise.resolve(null) : unpack(b64);
    logs.set(key, p);
  }
  return p;
}
