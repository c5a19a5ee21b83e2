import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "datasets/**", "**/*.py", "switch-swe-demo/**", "test-output/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    // Functions still being cut along their seams (issue 10); remove a file from this list once it passes.
    files: [
      "src/handoff/run.ts",
      "src/mock-model/server.ts",
      "src/qualify/qualify-task.ts",
      "src/verify/verify-artifact.ts",
    ],
    rules: { "max-lines-per-function": "off" },
  },
);
