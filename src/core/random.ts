import { createHash } from "node:crypto";

/** A seeded PRNG (sfc32): same seed, same stream, on every machine. Returns floats in [0, 1). */
export type Random = () => number;

export function seededRandom(...parts: Array<string | number>): Random {
  const digest = createHash("sha256").update(parts.map(String).join("\u0000")).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** Uniform integer in [lo, hi]. */
export function randomInt(rng: Random, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** Fisher-Yates on a copy. */
export function shuffled<T>(rng: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A uniformly random k-subset, in the order drawn. */
export function sample<T>(rng: Random, items: readonly T[], k: number): T[] {
  return shuffled(rng, items).slice(0, k);
}
