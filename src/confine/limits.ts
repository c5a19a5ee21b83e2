import { InputError, type Problem } from "../core/errors.js";

/**
 * Resource limits of a session's or a test run's processes (`--limits cpus=4,memory=16g,pids=1024`).
 * The defaults are the paper's machine: 4 vCPU and 16 GiB, and at most 1024 processes. A resource
 * named `none` (or the whole flag `none`) is not limited.
 */
export interface Limits {
  /** CPUs' worth of time per period (fractions allowed), or null. */
  cpus: number | null;
  /** Bytes of memory (swap included where the kernel can count it), or null. */
  memory: number | null;
  /** Most processes and threads at once, or null. */
  pids: number | null;
}

export type Resource = keyof Limits;
export const resources: readonly Resource[] = ["cpus", "memory", "pids"];

export const defaultLimits: Limits = { cpus: 4, memory: 16 * 1024 ** 3, pids: 1024 };
export const defaultLimitsText = "cpus=4,memory=16g,pids=1024";

const units: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `16g`, `512M`, `64mib`, `1048576`: binary units (a gigabyte is 2^30 bytes). */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (!m) return null;
  const bytes = Math.floor(Number(m[1]) * units[m[2]!.toLowerCase()]!);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

/** A size as people write it back: `16g`, `64m`, `1536k`, or bytes. */
export function formatSize(bytes: number): string {
  for (const [u, n] of [
    ["t", 1024 ** 4],
    ["g", 1024 ** 3],
    ["m", 1024 ** 2],
    ["k", 1024],
  ] as const)
    if (bytes % n === 0) return `${bytes / n}${u}`;
  return String(bytes);
}

function parseValue(key: Resource, value: string): number | string {
  if (key === "memory") return parseSize(value) ?? "not a size (e.g. 16g, 512m)";
  const n = Number(value);
  if (key === "cpus")
    return value.trim() !== "" && Number.isFinite(n) && n >= 0.01 && n <= 4096 ? n : "not a number of CPUs (e.g. 4 or 0.5)";
  // Fewer than 8 processes cannot even start the sandbox and a shell.
  return /^\d+$/.test(value) && Number.isSafeInteger(n) && n >= 8 ? n : "not an integer of at least 8";
}

/**
 * Parses `--limits`: `none`, or comma-separated `resource=value` pairs; resources left out keep their
 * default, `resource=none` lifts one. Every problem is reported as `--limits: pair: what is wrong`.
 */
export function parseLimits(text: string, flag = "--limits"): Limits {
  const spec = text.trim();
  if (spec === "none") return { cpus: null, memory: null, pids: null };
  const out: Limits = { ...defaultLimits };
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const pair of spec.split(",").map((p) => p.trim())) {
    const eq = pair.indexOf("=");
    const key = eq < 0 ? pair : pair.slice(0, eq).trim();
    const value = eq < 0 ? "" : pair.slice(eq + 1).trim();
    if (!(resources as readonly string[]).includes(key)) {
      problems.push({ file: flag, path: pair, message: `unknown resource (one of ${resources.join(", ")}, or the word none)` });
      continue;
    }
    if (eq < 0 || value === "") {
      problems.push({ file: flag, path: pair, message: "missing value (resource=value)" });
      continue;
    }
    if (seen.has(key)) problems.push({ file: flag, path: pair, message: `${key} is given twice` });
    seen.add(key);
    const r = key as Resource;
    const parsed = value === "none" ? null : parseValue(r, value);
    if (typeof parsed === "string") problems.push({ file: flag, path: pair, message: parsed });
    else out[r] = parsed;
  }
  if (problems.length > 0) throw new InputError(problems);
  return out;
}

/** The canonical text of limits (`cpus=4,memory=16g,pids=1024`, `none`), as run.json and logs show them. */
export function limitsText(l: Limits): string {
  if (l.cpus === null && l.memory === null && l.pids === null) return "none";
  return resources.map((r) => `${r}=${l[r] === null ? "none" : r === "memory" ? formatSize(l[r]!) : String(l[r])}`).join(",");
}
