// ESLint with typescript-eslint's type-checked rules over the project's code. The formatter (Prettier) owns layout;
// this owns correctness: promises nobody awaits, `any`, switches that miss a case.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "src/client/openapi.ts", "src/ui/static/", "coverage/", ".tap/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
    },
  },
);
