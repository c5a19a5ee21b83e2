import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import SkipSummaryReporter from "./test/skip-summary-reporter.js";

// Test files that skip for a missing tool record it here; the reporter's last line lists them.
const skipsFile = join(tmpdir(), `switch-swe-test-skips-${process.pid}.jsonl`);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Tests start real git, python and agent processes; two cores do not gain from more workers.
    maxWorkers: 2,
    env: { SWITCH_SWE_TEST_SKIPS: skipsFile },
    reporters: ["default", new SkipSummaryReporter(skipsFile)],
  },
});
