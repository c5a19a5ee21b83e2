// Peak memory of verifying one session whose artifact is large (default 50 MB): the verifier process's
// own peak RSS (process.resourceUsage().maxRSS), measured in a fresh Node process per verification.
// The artifact adds one big text file to a sample-dataset task, so the whole path runs: hashing,
// splitting, path checks, git apply, the held-out tests.
// Run: npm run build && node bench/verify-memory.mjs [MB ...]   (prints one line per size; default 0 and 50,
// with BENCH_SMALL=1 0 and 1)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleDatasetDir } from "../dist/core/package-paths.js";
import { loadDataset } from "../dist/dataset/load.js";

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isFinite(n) && n >= 0);
const work = mkdtempSync(join(tmpdir(), "switch-swe-bench-verify-memory-"));
const cache = join(work, "cache");

/** A patch that adds big_data.txt with `mb` megabytes of text lines. */
function writeBigPatch(file, mb) {
  const line = "+" + "0123456789abcdefghijklmnopqrstuvwxyz ".repeat(2) + "\n";
  const lines = Math.ceil((mb * 1024 * 1024) / line.length);
  const fd = openSync(file, "w");
  writeSync(
    fd,
    `diff --git a/big_data.txt b/big_data.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/big_data.txt\n@@ -0,0 +1,${lines} @@\n`,
  );
  const block = line.repeat(10_000);
  for (let i = 0; i < lines; i += 10_000) writeSync(fd, i + 10_000 <= lines ? block : line.repeat(lines - i));
  closeSync(fd);
}

// The measured child: verifies one session and prints its own peak RSS.
const child = `
import { verifyRun } from ${JSON.stringify(new URL("../dist/verify/run-verify.js", import.meta.url).href)};
const [runDir, session] = process.argv.slice(1);
const r = await verifyRun(runDir, { sessions: [session], force: true, concurrency: 1 });
const v = r.verdicts[session];
console.log(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, applied: v.applied, apply_error: v.apply_error ?? null, infra: v.infra_fault }));
`;

try {
  const dataset = loadDataset(sampleDatasetDir);
  const task = dataset.tasks[0];
  const session = `${task.id}.base`;
  for (const mb of sizes.length > 0 ? sizes : process.env.BENCH_SMALL === "1" ? [0, 1] : [0, 50]) {
    const runDir = join(work, `run-${mb}`);
    mkdirSync(join(runDir, "sessions", session), { recursive: true });
    writeFileSync(join(runDir, "run.json"), JSON.stringify({ dataset: { path: sampleDatasetDir } }));
    const artifact = join(runDir, "sessions", session, "artifact.patch");
    if (mb === 0) writeFileSync(artifact, "");
    else writeBigPatch(artifact, mb);
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", child, runDir, session], {
      env: { ...process.env, SWITCH_SWE_CACHE: cache },
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    const r = JSON.parse(out.trim().split("\n").pop());
    console.log(
      `artifact ${String(mb).padStart(4)} MB: verifier peak RSS ${r.maxRssMb.toFixed(0)} MB (applied ${r.applied}${r.apply_error ? `: ${r.apply_error}` : ""}${r.infra ? ", INFRA" : ""})`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
