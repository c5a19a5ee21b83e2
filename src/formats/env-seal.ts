import { z } from "zod";

/**
 * `<cache>/envs/<key>.seal.json`: the seal of a cached test environment, written by the verifier after
 * set-up, next to the environment and outside every sandbox (the environment itself is read-only).
 * `digest` covers every entry's path, type, mode, size, contents and symlink target; `stat` is a
 * cheap fingerprint (path, type, mode, size, inode, modification and change times in nanoseconds)
 * checked first before every use; the digest is recomputed only when the fingerprint differs.
 */
export const envSealSchema = z
  .object({
    format: z.literal("switch-swe.env-seal/1"),
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    stat: z.string().regex(/^[0-9a-f]{64}$/),
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    sealed_at: z.string(),
  })
  .strict();

export type EnvSeal = z.infer<typeof envSealSchema>;
