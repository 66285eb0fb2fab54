'use strict';
// ESLint (flat config): @eslint/js recommended for every JavaScript file of the package, its
// tests, benchmarks and scripts, with Node's globals. Formatting is Prettier's job (.prettierrc).
const js = require('@eslint/js');
const globals = require('globals');
// The import rule of lib/ (docs/architecture.md): each folder of lib/ has a layer, and a file may
// require only from its own folder and from the layers below it. Checked on require(), import and
// import() with a relative path.
//   shared   lib/*.js (native, etag, validate, stat-sources, response-shape), lib/http, lib/bounded
//   parser   lib/content-type: the media-type parser the engines read header lists with
//   engines  lib/files, lib/compression, lib/cache, lib/argon2, lib/critical-css
//   adapters lib/express, lib/koa, lib/fastify, lib/hono, lib/angular, lib/metrics
//   top      lib/register (swaps peers for adapters) and the package entries that gather several
//            pieces (lib/index.js, lib/cache/index.js)
const SHARED = ['http', 'bounded'];
const PARSER = ['content-type'];
const ENGINES = ['files', 'compression', 'cache', 'argon2', 'critical-css'];
const ADAPTERS = ['express', 'koa', 'fastify', 'hono', 'angular', 'metrics'];
const TOP = ['register'];
const ENTRIES = ['lib/index.js', 'lib/cache/index.js'];

// A relative specifier reaching lib/<folder> from a file one level below lib/ (from lib/*.js the
// prefix is ./ instead of ../).
function selectors(prefix, folders, why) {
  const pattern = `/^${prefix.replace(/[./]/g, '\\$&')}(${folders.join('|')})(\\/|$)/`;
  return [
    `CallExpression[callee.name="require"][arguments.0.value=${pattern}]`,
    `CallExpression[callee.object.name="require"][callee.property.name="resolve"][arguments.0.value=${pattern}]`,
    `ImportExpression[source.value=${pattern}]`,
    `ImportDeclaration[source.value=${pattern}]`,
  ].map((selector) => ({ selector, message: `${why} (the import rule: docs/architecture.md)` }));
}

const layer = (folders) => folders.flatMap((f) => [`lib/${f}/**/*.js`, `lib/${f}/**/*.mjs`]);

const importRule = [
  {
    files: ['lib/*.js', 'lib/*.mjs'],
    ignores: ENTRIES,
    rules: {
      'no-restricted-syntax': [
        'error',
        ...selectors(
          './',
          [...PARSER, ...ENGINES, ...ADAPTERS, ...TOP, 'index'],
          'a shared piece imports only shared pieces',
        ),
      ],
    },
  },
  {
    files: layer(SHARED),
    rules: {
      'no-restricted-syntax': [
        'error',
        ...selectors(
          '../',
          [...PARSER, ...ENGINES, ...ADAPTERS, ...TOP, 'index'],
          'a shared piece imports only shared pieces',
        ),
      ],
    },
  },
  {
    files: layer(PARSER),
    rules: {
      'no-restricted-syntax': [
        'error',
        ...selectors('../', [...ENGINES, ...ADAPTERS, ...TOP, 'index'], 'content-type imports only shared pieces'),
      ],
    },
  },
  {
    files: layer(ENGINES),
    ignores: ENTRIES,
    rules: {
      'no-restricted-syntax': [
        'error',
        ...selectors(
          '../',
          [...ENGINES, ...ADAPTERS, ...TOP, 'index'],
          'an engine imports only shared pieces and content-type, never another engine or an adapter',
        ),
      ],
    },
  },
  {
    files: layer(ADAPTERS),
    rules: {
      'no-restricted-syntax': [
        'error',
        ...selectors(
          '../',
          [...ADAPTERS, ...TOP, 'index'],
          'an adapter imports engines and shared pieces, never another adapter',
        ),
      ],
    },
  },
];

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
  ...importRule,
];
