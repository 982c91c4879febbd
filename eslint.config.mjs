import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.data/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Routes stay thin: what they need from the data layer comes through a service or serialize.ts (issue 28).
    files: ['apps/*/src/routes/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/queries/*', '**/queries'], message: 'routes call services; SQL and row types stay behind them' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['require', 'process', '__dirname', '__filename', 'console', 'fetch', 'URL', 'Buffer', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval']
          .map((name) => [name, 'readonly'])
          .concat([['module', 'writable']]),
      ),
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
