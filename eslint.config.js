// ESLint with typescript-eslint's type-checked rules over the project's code. The formatter (Prettier) owns layout;
// this owns correctness: promises nobody awaits, `any`, switches that miss a case.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "src/client/openapi.ts", "src/ui/static/", "coverage/", ".tap/", "packages/*/dist/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Scripts preloaded into a process under test are outside tsconfig.json (they use Node internals that Node's
        // types do not declare), and this file itself, are linted with the default project's options.
        projectService: { allowDefaultProject: ["test/fixtures/*.mjs", "eslint.config.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      // A leading underscore marks a name kept on purpose: a destructured field left out of the rest, a parameter an
      // interface requires.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // TypeScript already reports unknown names, in the .js files too (checkJs); this rule knows no Node globals.
      "no-undef": "off",
    },
  },
  {
    // A function a reader can hold in one screen: longer ones are split into named steps, the benchmarks' too. The
    // generated client is exempt (it is not read, only regenerated).
    files: ["src/**", "packages/*/src/**", "bench/**"],
    ignores: ["src/client/openapi.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The composition root reads in one screen.
    files: ["src/app.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests, and only tests:
    files: ["test/**", "packages/*/test/**"],
    rules: {
      // tap queues a subtest (`t.test`) and waits for it before the parent ends, so leaving its promise alone is how
      // tap is meant to be used; every other promise in a test must still be awaited or handled.
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafePromises: [{ from: "package", name: "PromiseWithSubtest", package: "@tapjs/core" }] },
      ],
      // tap ends a subtest when the promise its callback returns settles, and a callback that returns none must call
      // t.end(): so a subtest's callback is async even when it has nothing to await.
      "@typescript-eslint/require-await": "off",
      // A test reads JSON bodies (HTTP answers, the simulator's ARM resources) field by field to assert on them; the
      // assertion is the check, so a typed parse of every body would only repeat it. `any` itself stays forbidden.
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // Orca's and Deck's stand-ins, shared by the tests and the benchmarks: they read the service's JSON answers field
    // by field, as Orca's tasks do, and as the tests do.
    files: ["testkit/orca.ts", "testkit/deck.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
