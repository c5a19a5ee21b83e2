import { gitTry } from "../core/git.js";
import { runProcess } from "../core/process.js";

export type ApplyMethod = "git-apply" | "git-apply-3way" | "patch-fuzz";

export type ApplyOutcome = { ok: true; method: ApplyMethod } | { ok: false; error: string };

const applyTimeoutMs = 5 * 60_000;

/** Back to the checked-out commit: tracked changes undone, untracked and ignored files removed. */
export async function resetTree(checkout: string): Promise<void> {
  await gitTry(["reset", "-q", "--hard", "HEAD"], { cwd: checkout, timeoutMs: applyTimeoutMs });
  await gitTry(["clean", "-q", "-fdx"], { cwd: checkout, timeoutMs: applyTimeoutMs });
}

function lastLines(text: string, n = 6): string {
  return text.trim().split("\n").slice(-n).join("\n");
}

/**
 * Applies a patch file with the fallbacks SWE-bench's harness uses: `git apply`, then a three-way
 * apply, then `patch --fuzz=3` as a last resort, each from a clean tree. Returns which one worked,
 * or the first attempt's error (the most telling) when none did.
 */
export async function applyWithFallbacks(checkout: string, patchFile: string, log: (t: string) => void): Promise<ApplyOutcome> {
  const attempts: Array<{ method: ApplyMethod; run: () => ReturnType<typeof runProcess> }> = [
    { method: "git-apply", run: () => gitTry(["apply", "--whitespace=nowarn", patchFile], { cwd: checkout, timeoutMs: applyTimeoutMs }) },
    { method: "git-apply-3way", run: () => gitTry(["apply", "--3way", "--whitespace=nowarn", patchFile], { cwd: checkout, timeoutMs: applyTimeoutMs }) },
    {
      method: "patch-fuzz",
      run: () =>
        runProcess("patch", ["-p1", "--fuzz=3", "--no-backup-if-mismatch", "--force", "--reject-file=-", "-i", patchFile], {
          cwd: checkout,
          timeoutMs: applyTimeoutMs,
        }),
    },
  ];
  let firstError: string | null = null;
  for (const a of attempts) {
    await resetTree(checkout);
    const r = await a.run();
    const out = `${r.stdout}${r.stderr}`;
    log(`apply (${a.method}): ${r.code === 0 ? "ok" : `failed (exit ${r.code ?? r.spawnError ?? r.signal})`}\n${out ? `${lastLines(out, 40)}\n` : ""}`);
    if (r.code === 0 && !r.spawnError) {
      // A three-way apply that left conflict markers exits non-zero; a clean one is accepted.
      return { ok: true, method: a.method };
    }
    firstError ??= `${a.method}: ${lastLines(out || r.spawnError || "failed", 4)}`;
  }
  await resetTree(checkout);
  return { ok: false, error: firstError ?? "patch does not apply" };
}

/** Applies a patch that must apply exactly (the held-out tests, reference stages). */
export async function applyExact(checkout: string, patchFile: string): Promise<string | null> {
  const r = await gitTry(["apply", "--whitespace=nowarn", patchFile], { cwd: checkout, timeoutMs: applyTimeoutMs });
  return r.code === 0 ? null : lastLines(r.stderr || r.stdout || "git apply failed", 4);
}
