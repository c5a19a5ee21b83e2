import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeSubmission, readSubmission } from "../../src/run/submission.js";
import { finalizationMessage, submissionText } from "../../src/run/message-templates.js";
import { runFiles } from "../../src/formats/run-layout.js";
import { runSessions } from "../../src/run/runner.js";
import { sessionSummarySchema } from "../../src/formats/session-summary.js";
import { tempDir } from "../helpers/temp.js";
import { makeRunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// The oracle run needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const patch = [
  "diff --git a/pkg/x.py b/pkg/x.py",
  "index 1111111..2222222 100644",
  "--- a/pkg/x.py",
  "+++ b/pkg/x.py",
  "@@ -1,2 +1,3 @@",
  " # x",
  "-VALUE = 1",
  "+VALUE = 2",
  "+--- not a header, a line that reads like one",
  "",
].join("\n");

const normalized = (text: string) => {
  const r = normalizeSubmission(Buffer.from(text, "utf8"));
  if (r.status !== "submitted") throw new Error(`${r.status}: ${r.detail}`);
  return r;
};

describe("normalizing a submission", () => {
  it("keeps a plain patch byte for byte", () => {
    expect(normalized(patch)).toEqual({ status: "submitted", patch, normalized: [] });
  });

  it("undoes CRLF, fences, JSON and <patch> tags, and nothing of the patch", () => {
    expect(normalized(patch.replace(/\n/g, "\r\n"))).toEqual({ status: "submitted", patch, normalized: ["crlf"] });
    expect(normalized(`Final patch:\n\n\`\`\`diff\n${patch}\`\`\`\n\nDone.\n`)).toEqual({
      status: "submitted",
      patch,
      normalized: ["fence"],
    });
    expect(normalized(`~~~~\n${patch}~~~~`).patch).toBe(patch);
    expect(normalized(JSON.stringify(patch))).toEqual({ status: "submitted", patch, normalized: ["json"] });
    expect(normalized(JSON.stringify({ model_patch: patch }))).toEqual({ status: "submitted", patch, normalized: ["json"] });
    expect(normalized(`<patch>\n${patch}</patch>\n`)).toEqual({ status: "submitted", patch, normalized: ["tags"] });
    expect(normalized(`\uFEFF${patch}`)).toEqual({ status: "submitted", patch, normalized: ["bom"] });
  });

  it("adds the final newline and a/ b/ prefixes where they are missing", () => {
    expect(normalized(patch.slice(0, -1))).toEqual({ status: "submitted", patch, normalized: ["trailing_newline"] });
    const bare = patch
      .replace("diff --git a/pkg/x.py b/pkg/x.py", "diff --git pkg/x.py pkg/x.py")
      .replace("--- a/pkg/x.py", "--- pkg/x.py")
      .replace("+++ b/pkg/x.py", "+++ pkg/x.py");
    expect(normalized(bare)).toEqual({ status: "submitted", patch, normalized: ["prefixes"] });
    // A new file: /dev/null stays; a repository directory named `a` is not taken for a prefix.
    const created = "--- /dev/null\n+++ a/new.py\n@@ -0,0 +1 @@\n+X = 1\n";
    expect(normalized(created).patch).toBe("--- /dev/null\n+++ b/a/new.py\n@@ -0,0 +1 @@\n+X = 1\n");
  });

  it("a fence inside the patch (a markdown file's diff) is the patch's own: left alone", () => {
    const md = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,3 @@\n # r\n+```\n+```\n";
    expect(normalized(md)).toEqual({ status: "submitted", patch: md, normalized: [] });
  });

  it("empty, prose, and a fence without a diff are unparsable", () => {
    for (const text of ["", "  \n", "I could not finish the task.\n", "```\nnot a diff\n```\n"]) {
      expect(normalizeSubmission(Buffer.from(text)).status, JSON.stringify(text)).toBe("unparsable");
    }
  });
});

describe("reading a submission from the workspace", () => {
  it("no file is missing; a symbolic link or a directory is refused, never followed", () => {
    const ws = tempDir("switch-swe-submission-");
    expect(readSubmission(ws)).toMatchObject({ status: "missing", detail: "no final.patch in the workspace" });
    const secret = join(tempDir("switch-swe-secret-"), "secret.patch");
    writeFileSync(secret, patch);
    symlinkSync(secret, join(ws, "final.patch"));
    expect(readSubmission(ws)).toMatchObject({ status: "missing", detail: "final.patch is a symbolic link" });
    const ws2 = tempDir("switch-swe-submission-");
    mkdirSync(join(ws2, "final.patch"));
    expect(readSubmission(ws2)).toMatchObject({ status: "missing", detail: "final.patch is not a regular file" });
    const ws3 = tempDir("switch-swe-submission-");
    writeFileSync(join(ws3, "final.patch"), patch);
    expect(readSubmission(ws3)).toEqual({ status: "submitted", patch, normalized: [] });
  });

  it("the finalization request asks for it in one fixed sentence, in agent mode only", () => {
    expect(finalizationMessage("demo", "/w/w01", "agent")).toBe(
      `Repository: demo\nWorkspace: /w/w01\n\nFinish the task in this workspace and leave it ready for evaluation. There are no further requirements. ${submissionText}`,
    );
    expect(finalizationMessage("demo", "/w/w01", "checkout")).not.toContain("final.patch");
  });
});

describe.skipIf(missingTool)("the oracle under --submission agent", () => {
  it("writes its submission: every session resolves, with the checkout's own diff as the artifact", async () => {
    const fx = makeRunFixture(2);
    const out = join(fx.root, "run-oracle-agent");
    const outcome = await runSessions({
      out,
      resume: false,
      dataset: fx.datasetDir,
      sessions: fx.sessionsPath,
      agent: "oracle",
      agentOptions: {},
      submission: "agent",
      concurrency: 2,
      keepWorkspaces: false,
      verify: true,
      progress: () => undefined,
    });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ failed: [], interrupted: false });
    expect(outcome.finished).toHaveLength(4);
    for (const s of outcome.finished) {
      const summary = sessionSummarySchema.parse(JSON.parse(readFileSync(runFiles.summary(out, s), "utf8")));
      expect(summary.submission).toEqual({ mode: "agent", status: "submitted", normalized: [] });
      expect(readFileSync(runFiles.artifact(out, s), "utf8")).toBe(readFileSync(runFiles.checkoutPatch(out, s), "utf8"));
      expect(JSON.parse(readFileSync(runFiles.verdict(out, s), "utf8")).resolved, s).toBe(true);
    }
  }, 300_000);
});
