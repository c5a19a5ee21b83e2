import type { Command } from "commander";
import { exportAtif } from "../../export/atif-export.js";
import { ATIF_SCHEMA_VERSION } from "../../formats/atif.js";

/** `export atif RUN_DIR --out DIR`: a run's trajectories in formats other tools read. */
export function registerExport(program: Command): void {
  const exp = program.command("export").description("a run's trajectories in formats other tools read");
  exp
    .command("atif")
    .description(
      `one ATIF trajectory (${ATIF_SCHEMA_VERSION}, Harbor's Agent Trajectory Interchange Format) per session of a run: DIR/<session>.json`,
    )
    .argument("<run-dir>", "run directory")
    .requiredOption("--out <dir>", "directory to write the trajectories to (created if needed; files of the same sessions are replaced)")
    .action((runDir: string, o: { out: string }) => {
      const { files, skipped } = exportAtif(runDir, o.out);
      const none = skipped.length ? ` (${skipped.length} session(s) without a trajectory: ${skipped.join(", ")})` : "";
      process.stderr.write(`export: wrote ${files.length} ${ATIF_SCHEMA_VERSION} trajectories to ${o.out}${none}\n`);
    });
}
