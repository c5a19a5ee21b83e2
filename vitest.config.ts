import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Tests start real git, python and agent processes; two cores do not gain from more workers.
    maxWorkers: 2,
  },
});
