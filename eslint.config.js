// @ts-check
import tseslint from 'typescript-eslint';
import { boundaries, settingsBoundary } from './eslint.boundaries.js';

export default tseslint.config(
  // examples/ is type-checked against a generated schema by its own test (test/e2e/contract.e2e.test.ts).
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.bench/', '.tmp/', 'examples/', '*.js'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['test/support/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  ...boundaries,
  ...settingsBoundary,
  {
    // Plain-ESM glue that jest loads outside its transform; untyped by nature.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
