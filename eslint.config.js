'use strict';
// ESLint (flat config): @eslint/js recommended for every JavaScript file of the package, its
// tests, benchmarks and scripts, with Node's globals. Formatting is Prettier's job (.prettierrc).
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  {
    ignores: [
      'node_modules/**',
      'build/**',
      'build-*/**',
      'dist/**',
      'prebuilds/**',
      'test/fixtures/angular-app/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    rules: {
      // `catch {}` and `catch (err) {}` that deliberately ignore are written as such.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Express tells error handlers by their four parameters: `next` stays even when unused.
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^(_|next$)', caughtErrors: 'none' }],
      // Header and byte scanners match control characters on purpose (RFC 9110 field values).
      'no-control-regex': 'off',
    },
  },
];
