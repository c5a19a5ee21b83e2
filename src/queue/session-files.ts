import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, resolve, sep } from "node:path";
import { writeFileAtomic } from "../core/json-file.js";

/** Every regular file under a session directory, by its path relative to it, as base64. */
export function readSessionFiles(sessionDir: string): Array<{ path: string; b64: string }> {
  const out: Array<{ path: string; b64: string }> = [];
  const walk = (rel: string) => {
    const dir = rel === "" ? sessionDir : join(sessionDir, rel);
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const r = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(join(sessionDir, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) out.push({ path: r, b64: readFileSync(join(sessionDir, r)).toString("base64") });
    }
  };
  walk("");
  return out;
}

/** A relative path that stays inside its directory (a worker's result is checked before it is written). */
export function safeSessionPath(p: string): boolean {
  return (
    p !== "" &&
    posix.normalize(p) === p &&
    !p.startsWith("/") &&
    !p.startsWith("../") &&
    p !== ".." &&
    !p.includes("\0") &&
    !p.includes("\\")
  );
}

/** Writes shipped files into a session directory, each atomically; unsafe paths are refused. */
export function writeSessionFiles(sessionDir: string, files: ReadonlyArray<{ path: string; b64: string }>): void {
  const root = resolve(sessionDir);
  for (const f of files) {
    const target = resolve(root, f.path);
    if (!safeSessionPath(f.path) || !target.startsWith(root + sep))
      throw new Error(`refused a file outside the session directory: ${JSON.stringify(f.path)}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileAtomic(target, Buffer.from(f.b64, "base64"));
  }
}
