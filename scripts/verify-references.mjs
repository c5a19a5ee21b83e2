// node scripts/verify-references.mjs DATASET: every task's reference (its stage patches applied in order,
// what the oracle's focus checkout holds) and an empty patch (what nop leaves), each verified as `verify`
// verifies a session's artifact (bubblewrap, canaries planted). For datasets that form no session pairs,
// where `run --agent oracle` has no session to drive. Run `npm run build` first.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url);
const { loadDataset } = await import(new URL("dataset/load.js", dist).href);
const { verifyArtifact } = await import(new URL("verify/verify-artifact.js", dist).href);
const { freshCheckout } = await import(new URL("testbed/task-testbed.js", dist).href);

const dataset = loadDataset(process.argv[2]);
const work = mkdtempSync(join(tmpdir(), "switch-swe-references-"));
let wrong = 0;
try {
  for (const task of dataset.tasks) {
    const checkout = join(work, `${task.id}-reference`);
    await freshCheckout(dataset, task, checkout);
    task.stagePatches.forEach((text, k) => {
      const file = join(work, `${task.id}-stage-${k + 1}.patch`);
      writeFileSync(file, text);
      execFileSync("git", ["-C", checkout, "apply", file]);
    });
    const reference = execFileSync("git", ["-C", checkout, "diff"], { encoding: "utf8" });
    for (const [agent, artifactText] of [
      ["oracle", reference],
      ["nop", ""],
    ]) {
      const t0 = Date.now();
      const v = await verifyArtifact({
        dataset,
        task,
        artifactText,
        workRoot: join(work, `${task.id}-${agent}`),
        session: `${task.id}.${agent}`,
      });
      if (v.resolved !== (agent === "oracle") || v.infra_fault) wrong++;
      const fault = v.infra_fault ? `; infrastructure fault: ${v.infra_reason}` : "";
      const s = ((Date.now() - t0) / 1000).toFixed(1);
      console.log(
        `${task.id} ${agent}: ${v.resolved ? "resolved" : "unresolved"}; F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total}, P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}${fault}; ${s} s`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = wrong === 0 ? 0 : 1;
