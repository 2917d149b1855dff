// ESLint for the repository's TypeScript and JavaScript (src, test, scripts, bench, demo, compat and the root config
// files): typescript-eslint's type-checked rules, so floating promises, misused promises and values that print as
// "[object Object]" are found. `npx eslint .` lints the same files as `npm run lint`.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import { defineConfig } from "eslint/config";

/** Packages these files import that only their own run scripts install (bench's peers, Prisma 6's generated client). */
const unresolvedImports = ["bench/peers/graphile-worker*.ts", "bench/peers/pg-boss*.ts", "bench/build-children.ts", "bench/workflows-dbos.ts", "compat/prisma6/**"];

export default defineConfig(
  {
    // examples/ is a package of its own (its own dependencies and checks); .scratch, .demo and .artifacts are local
    // working folders that git ignores.
    ignores: [
      "**/node_modules/**",
      "dist/**",
      ".scratch/**",
      ".demo/**",
      ".artifacts/**",
      "test/generated*/**",
      "compat/prisma6/generated*/**",
      "bench/results/**",
      "bench/.build/**",
      "examples/**",
      "**/*.d.ts",
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // Methods that implement a Promise-returning interface stay `async` without an await, so a throw in them is a rejection.
      "@typescript-eslint/require-await": "off",
      // A name that starts with "_" is one kept on purpose (a parameter a signature needs, a rest sibling left out).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed any, and an expected object holds them by design.
      "@typescript-eslint/no-unsafe-assignment": "off",
    },
  },
  {
    files: ["**/*.mjs"],
    rules: {
      // Plain JavaScript has no types: every parameter is any, so these rules would flag each use of one.
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    files: unresolvedImports,
    rules: {
      // Their types resolve only where bench/ or compat/prisma6/ installed its own packages, so here they read as errors.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
    },
  },
);
