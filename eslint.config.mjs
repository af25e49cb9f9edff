import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import regexpPlugin from "eslint-plugin-regexp";

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  regexpPlugin.configs.recommended,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".next-*/**",
      "lib/generated/**",
      ".data/**",
      ".cache/**",
      "test-results/**",
      "playwright-report/**",
      "clients/**/dist/**",
      "next-env.d.ts",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Regexes run over agent- and user-supplied text: one that backtracks super-linearly blocks the
      // event loop for seconds. The recommended set has the first; the second (a search retried from
      // every position of a long run) is off there and matters as much here.
      "regexp/no-super-linear-backtracking": "error",
      "regexp/no-super-linear-move": "error",
      // Matching control characters is the point where we strip them from untrusted text.
      "no-control-regex": "off",
      // Spelling only: explicit ranges such as [A-Za-z0-9_] read as well as \w in validation patterns.
      "regexp/prefer-d": "off",
      "regexp/prefer-w": "off",
      "regexp/use-ignore-case": "off",
    },
  },
];

export default config;
