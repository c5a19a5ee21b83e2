import type { Report } from "./report-schema.js";
import type { Section } from "./section.js";

const short = (sha: string | null): string => (sha === null ? "unknown" : sha.slice(0, 12));

/**
 * What each configuration ran, before any figure: its sessions file and dataset by digest, and how many of
 * the sessions file's pairs never ran. Those pairs stay in every denominator (unresolved), so a run of a
 * subset must say so before a reader takes its rates for the method's.
 */
export function inputsSection(report: Report): Section {
  const notes: string[] = [];
  for (const c of report.configs) {
    const p = c.pairs_run;
    if (p.not_run === 0 && p.partly_run === 0) continue;
    const partly = p.partly_run > 0 ? ` and ${p.partly_run} ran one condition only` : "";
    notes.push(
      `${c.label}: ${p.not_run} of ${p.pairs} pairs of the sessions file never ran${partly}; every figure below counts their sessions as unresolved (denominator: all ${p.pairs} pairs). To report a subset, run a smaller sessions file (sessions subset).`,
    );
  }
  const differ = (f: (c: Report["configs"][number]) => string | null) => new Set(report.configs.map(f)).size > 1;
  if (differ((c) => c.sessions_file.sha256) || differ((c) => c.dataset.sha256)) {
    notes.push("The configurations ran different sessions files or datasets (--allow-mixed): their averages and comparisons mix them.");
  }
  if (differ((c) => c.submission))
    notes.push(
      "The configurations took their scored patches differently (--submission agent and checkout): a submission failure exists only under agent.",
    );
  notes.push(
    "Submission: agent = the patch the agent wrote at finalization (the paper's protocol); checkout = the focus checkout's diff (docs/run-format.md).",
  );
  notes.push(
    "Digests: the first 12 hex digits of the sha256 of the sessions file and of the dataset each run ran (run.json records them; --format json has them in full).",
  );
  return {
    id: "inputs",
    title: "Inputs",
    notes,
    columns: [
      { header: "configuration", align: "left" },
      { header: "pairs", align: "right" },
      { header: "never ran", align: "right" },
      { header: "one condition only", align: "right" },
      { header: "submission", align: "left" },
      { header: "sessions sha256", align: "left" },
      { header: "dataset", align: "left" },
      { header: "dataset sha256", align: "left" },
    ],
    rows: report.configs.map((c) => [
      c.label,
      String(c.pairs_run.pairs),
      String(c.pairs_run.not_run),
      String(c.pairs_run.partly_run),
      c.submission,
      short(c.sessions_file.sha256),
      `${c.dataset.name ?? "?"} ${c.dataset.version ?? ""}`.trim(),
      short(c.dataset.sha256),
    ]),
  };
}
