import type { AuditFinding } from "../formats/audit.js";
import type { ManifestStage, ManifestTask } from "../manifests/task-manifest.js";
import { commitMarks } from "./commit-text.js";
import { finding, listed } from "./finding.js";
import { leakingSentences } from "./leak.js";

/** A test id's function (or method) name, without parameters. */
const testFunction = (id: string): string => (id.split("::").pop() ?? id).replace(/\[.*$/, "");

/**
 * `unreviewed`, a warning until readers record their readings: a stage whose text no second reader
 * read, or whose reader is the writer model that wrote it (that reading is not independent).
 */
function reviewFindings(s: ManifestStage, k: number): AuditFinding[] {
  if (s.reviewed_by === undefined) {
    return [finding("unreviewed", k, "no second, independent reading of the request text is recorded", "stages[].reviewed_by is absent")];
  }
  if (s.writer?.status === "written" && s.writer.model === s.reviewed_by.reader) {
    const evidence = `reviewed_by.reader and writer.model are both ${s.reviewed_by.reader}`;
    return [finding("unreviewed", k, "the text was read by the writer model that wrote it, not independently", evidence)];
  }
  return [];
}

/**
 * The checks a manifest alone decides: stages without an F2P test of their own, texts without a second
 * reading, commit-derived or commit-marked texts, paraphrase leaks, and F2P tests named for a private
 * function. `texts` are the stage texts as a solver reads them (derived from the commits where the
 * manifest has none, when the repository was read; else null for such a stage).
 */
export function textChecks(t: ManifestTask, texts: ReadonlyArray<string | null>): AuditFinding[] {
  const out: AuditFinding[] = [];
  t.stages.forEach((s, i) => {
    const k = i + 1;
    const tested = t.stages.length === 1 ? t.verifier.fail_to_pass.length > 0 : s.tests.length > 0;
    if (!tested)
      out.push(
        finding(
          "untested-stage",
          k,
          "no F2P test of its own: a solver who skips this request loses nothing the verifier sees",
          "stages[].tests is empty",
        ),
      );
    if (s.text === undefined || s.draft === true) {
      out.push(
        finding(
          "commit-text",
          k,
          "the request text is derived from commit messages (a draft), not written for the dataset",
          s.draft === true ? "draft: true" : "no text in the manifest",
        ),
      );
    }
    out.push(...reviewFindings(s, k));
    const text = texts[i] ?? null;
    if (text === null) return;
    for (const m of commitMarks(text))
      out.push(finding("commit-text", k, `the text holds ${m.what}`, listed(m.evidence.map((e) => JSON.stringify(e)))));
    for (const l of leakingSentences(text))
      out.push(
        finding(
          "leak",
          k,
          "a sentence prescribes how without an observable input and result",
          `${JSON.stringify(l.sentence)}: ${l.cues.join(", ")}`,
        ),
      );
  });
  t.stages.forEach((s, i) => {
    const privates = (t.stages.length === 1 ? t.verifier.fail_to_pass : s.tests).filter((id) => /^test__[A-Za-z]/.test(testFunction(id)));
    if (privates.length > 0)
      out.push(
        finding(
          "f2p-elsewhere",
          i + 1,
          `${privates.length} F2P test(s) named for a private function: they measure an internal name, not what the request asks`,
          listed(privates),
        ),
      );
  });
  return out;
}
