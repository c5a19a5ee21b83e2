import { runProcess } from "../core/process.js";
import { bedGit, plainTree, type BedGit } from "./bed-git.js";

export type ApplyMethod = "git-apply" | "git-apply-3way" | "patch-fuzz";

export type ApplyOutcome = { ok: true; method: ApplyMethod } | { ok: false; error: string };

const applyTimeoutMs = 5 * 60_000;

/** Back to the checked-out commit: tracked changes undone, untracked and ignored files removed. */
export async function resetTree(tree: BedGit): Promise<void> {
  await bedGit(tree, ["reset", "-q", "--hard", "HEAD"], { timeoutMs: applyTimeoutMs });
  await bedGit(tree, ["clean", "-q", "-fdx"], { timeoutMs: applyTimeoutMs });
}

/** GNU patch's environment: no POSIX mode, no version-control checkouts. */
function patchEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATCH_GET: "0" };
  delete env.POSIXLY_CORRECT;
  return env;
}

function lastLines(text: string, n = 6): string {
  return text.trim().split("\n").slice(-n).join("\n");
}

/**
 * Applies a patch file with the fallbacks SWE-bench's harness uses: `git apply`, then a three-way
 * apply, then `patch --fuzz=3` as a last resort, each from a clean tree. Returns which one worked,
 * or the first attempt's error (the most telling) when none did. The file must hold only what the
 * one parser recognised (core/patch-blocks.ts re-serialises it): GNU patch reads any text as patches.
 * `tree` is a checkout path (its own `.git`) or a checkout whose git directory is outside it.
 */
export async function applyWithFallbacks(tree: string | BedGit, patchFile: string, log: (t: string) => void): Promise<ApplyOutcome> {
  const bed = typeof tree === "string" ? plainTree(tree) : tree;
  const attempts: Array<{ method: ApplyMethod; run: () => ReturnType<typeof runProcess> }> = [
    { method: "git-apply", run: () => bedGit(bed, ["apply", "--whitespace=nowarn", patchFile], { timeoutMs: applyTimeoutMs }) },
    {
      method: "git-apply-3way",
      run: () => bedGit(bed, ["apply", "--3way", "--whitespace=nowarn", patchFile], { timeoutMs: applyTimeoutMs }),
    },
    {
      method: "patch-fuzz",
      run: () =>
        // --get=0: never check a file out of RCS, SCCS, ClearCase or Perforce (PATCH_GET may say otherwise).
        runProcess("patch", ["-p1", "--fuzz=3", "--get=0", "--no-backup-if-mismatch", "--force", "--reject-file=-", "-i", patchFile], {
          cwd: bed.workTree,
          timeoutMs: applyTimeoutMs,
          env: patchEnv(),
        }),
    },
  ];
  let firstError: string | null = null;
  for (const a of attempts) {
    await resetTree(bed);
    const r = await a.run();
    const out = `${r.stdout}${r.stderr}`;
    log(
      `apply (${a.method}): ${r.code === 0 ? "ok" : `failed (exit ${r.code ?? r.spawnError ?? r.signal})`}\n${out ? `${lastLines(out, 40)}\n` : ""}`,
    );
    if (r.code === 0 && !r.spawnError) {
      // A three-way apply that left conflict markers exits non-zero; a clean one is accepted.
      return { ok: true, method: a.method };
    }
    firstError ??= `${a.method}: ${lastLines(out || r.spawnError || "failed", 4)}`;
  }
  await resetTree(bed);
  return { ok: false, error: firstError ?? "patch does not apply" };
}

/** Applies a patch that must apply exactly (the held-out tests, reference stages). */
export async function applyExact(tree: string | BedGit, patchFile: string): Promise<string | null> {
  const r = await bedGit(typeof tree === "string" ? plainTree(tree) : tree, ["apply", "--whitespace=nowarn", patchFile], {
    timeoutMs: applyTimeoutMs,
  });
  return r.code === 0 ? null : lastLines(r.stderr || r.stdout || "git apply failed", 4);
}
