import { defaultConfineBackend } from "../confine/registry.js";
import type { DoctorCheck, DoctorReport, DoctorUse } from "../formats/doctor.js";

const base = ["node", "git", "python3", "pytest"];
/** The default backend's check (its mode): what `run` and `verify` confine with unless told otherwise. */
const sandbox = defaultConfineBackend().mode;

/**
 * What each use needs. The demo runs the harness's own agents, so it runs (unconfined) without
 * bubblewrap; `run` and `verify` confine agents and test runs; the test suite needs every tool,
 * since under CI=true none of its tests may skip.
 */
export const needsOf: Record<DoctorUse, readonly string[]> = {
  demo: base,
  // socat: `run --network model` (the default) relays the model endpoint into the agent's sandbox with it.
  run: [...base, sandbox, "socat"],
  verify: [...base, sandbox],
  queue: [...base, sandbox, "socat", "redis-server"],
  test: [...base, sandbox, "userns", "socat", "cgroups", "redis-server", "chromium"],
};

/** The report for one use: ready when every check it needs passed. */
export function judge(use: DoctorUse, checks: readonly DoctorCheck[]): DoctorReport {
  const byId = new Map(checks.map((c) => [c.id, c]));
  const missing = needsOf[use].filter((id) => byId.get(id)?.ok !== true);
  return { format: "switch-swe.doctor/1", for: use, ready: missing.length === 0, missing, checks: [...checks] };
}

/** The plain-text report: one line per check (needed ones marked), then the verdict for the use. */
export function formatDoctor(report: DoctorReport): string {
  const needed = new Set(needsOf[report.for]);
  const width = Math.max(...report.checks.map((c) => c.id.length));
  const lines = report.checks.map((c) => {
    const mark = c.ok ? "ok  " : needed.has(c.id) ? "MISS" : "--  ";
    const fix = !c.ok && c.install ? `; install: ${c.install}` : "";
    return `${mark} ${c.id.padEnd(width)}  ${c.detail}  [${c.enables}]${fix}`;
  });
  lines.push(
    "",
    report.ready
      ? `ready for ${report.for}: everything it needs is here`
      : `not ready for ${report.for}: missing ${report.missing.join(", ")} (see the install commands above)`,
  );
  return lines.join("\n");
}
