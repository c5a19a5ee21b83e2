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
    // The report page's script runs in the browser (compiled by tsconfig.page.json).
    files: ["src/report/page/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
);
