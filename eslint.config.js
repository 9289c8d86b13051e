// The view's linter (run by `npm run lint`, part of the test command).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["campaign_widget/static/**", "node_modules/**", "**/*.min.js"] },
  js.configs.recommended,
  {
    files: ["js/**/*.js", "benchmarks/**/*.js", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: 2025, // import attributes: js/shared/theme.js imports campaign_widget/theme.json
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
    },
  },
];
