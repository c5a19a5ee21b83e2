import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Reporter } from "vitest/reporters";
import { toolInstall, type Tool } from "./helpers/tool-install.js";

interface SkipLine {
  file: string;
  tools: Tool[];
  reason: string;
}

/**
 * The run's last line: which test files skipped for a missing tool, and what to install. The files
 * are recorded by test/helpers/tools.ts in the file vitest.config.ts names.
 */
export default class SkipSummaryReporter implements Reporter {
  constructor(private readonly file: string) {
    rmSync(file, { force: true });
  }

  onTestRunEnd(): void {
    if (!existsSync(this.file)) return;
    const lines = readFileSync(this.file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as SkipLine);
    rmSync(this.file, { force: true });
    if (lines.length === 0) return;
    const files = [...new Set(lines.map((l) => l.file))].sort();
    const tools = [...new Set(lines.flatMap((l) => l.tools))].sort();
    process.stdout.write(
      `\nskipped for missing tools: ${files.length} test file(s) (${files.join(", ")}); missing: ${tools.join(", ")}; to run them: ${tools.map((t) => toolInstall[t]).join("; ")} (see switch-swe doctor --for test; under CI=true they fail instead)\n`,
    );
  }
}
