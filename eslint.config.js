'use strict';
// ESLint (flat config): @eslint/js recommended for every JavaScript file of the package, its
// tests, benchmarks and scripts, with Node's globals. Formatting is Prettier's job (.prettierrc).
const js = require('@eslint/js');
const globals = require('globals');
// The import rule of lib/ (docs/architecture.md): each folder of lib/ has a layer, and a file may
// require only from its own folder and from the layers below it. Checked on require(),
// require.resolve(), import and import() with a relative path.
//   shared        lib/*.js (native, etag, validate, stat-sources, response-shape), lib/http,
//                 lib/bounded
//   base engines  lib/content-type (media types) and lib/files (the native file store and the
//                 static engine): other engines may build on them
//   engines       lib/compression, lib/cache, lib/argon2, lib/critical-css
//   adapters      lib/express, lib/koa, lib/fastify, lib/hono, lib/angular, lib/metrics
//   top           lib/register (swaps peers for adapters) and lib/index.js, the package's main
//                 entry, which gathers pieces of several layers
// The entries ssr-native/cache, /compression and /critical-css are node:http / Express faces, so
// they live in lib/express (as /serve-static does), and engines import no adapter. lib/angular
// may import lib/express: an Angular SSR server is an Express app (its criticalCss is Express's).
const SHARED = ['http', 'bounded'];
const BASE_ENGINES = ['content-type', 'files'];
const ENGINES = ['compression', 'cache', 'argon2', 'critical-css'];
const ADAPTERS = ['express', 'koa', 'fastify', 'hono', 'angular', 'metrics'];
const TOP = ['register', 'index'];
const ENTRIES = ['lib/index.js', 'lib/index.d.ts'];

// Selectors for a relative specifier reaching lib/<folder>: `prefix` is ../ from a file in a
// folder of lib/, ./ from lib/*.js.
function forbid(prefix, folders, why) {
  const pattern = `/^${prefix.replace(/[./]/g, '\\$&')}(${folders.join('|')})(\\/|$)/`;
  const message = `${why} (the import rule: docs/architecture.md)`;
  return {
    'no-restricted-syntax': [
      'error',
      ...[
        `CallExpression[callee.name="require"][arguments.0.value=${pattern}]`,
        `CallExpression[callee.object.name="require"][callee.property.name="resolve"][arguments.0.value=${pattern}]`,
        `ImportExpression[source.value=${pattern}]`,
        `ImportDeclaration[source.value=${pattern}]`,
      ].map((selector) => ({ selector, message })),
    ],
  };
}

const inside = (folders) => folders.flatMap((f) => [`lib/${f}/**/*.js`, `lib/${f}/**/*.mjs`, `lib/${f}/**/*.d.ts`]);
const ABOVE_SHARED = [...BASE_ENGINES, ...ENGINES, ...ADAPTERS, ...TOP];
const SHARED_ONLY = 'a shared piece imports only shared pieces';

const importRule = [
  { files: ['lib/*.js', 'lib/*.mjs', 'lib/*.d.ts'], ignores: ENTRIES, rules: forbid('./', ABOVE_SHARED, SHARED_ONLY) },
  { files: inside(SHARED), rules: forbid('../', ABOVE_SHARED, SHARED_ONLY) },
  {
    files: inside(BASE_ENGINES),
    rules: forbid('../', ABOVE_SHARED, 'content-type and files import only shared pieces'),
  },
  {
    files: inside(ENGINES),
    rules: forbid(
      '../',
      [...ENGINES, ...ADAPTERS, ...TOP],
      'an engine imports shared pieces, content-type and files, never another engine or an adapter',
    ),
  },
  {
    files: inside(ADAPTERS.filter((a) => a !== 'angular')),
    rules: forbid('../', [...ADAPTERS, ...TOP], 'an adapter imports engines and shared pieces, never another adapter'),
  },
  {
    files: inside(['angular']),
    rules: forbid(
      '../',
      [...ADAPTERS.filter((a) => a !== 'express'), ...TOP],
      'the Angular adapter imports engines, shared pieces and the Express adapter (an Angular server is an Express app), never another adapter',
    ),
  },
];

// The type declarations (lib/**/*.d.ts) obey the import rule too. No TypeScript parser is
// installed, and the rule needs only the specifiers: this parser reads a .d.ts file's `from '...'`,
// `import '...'` and `import('...')` into ImportDeclaration / ImportExpression nodes (at their
// place in the text), so the selectors above apply to them as to JavaScript.
function locOf(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) };
}

const declarationImports = {
  meta: { name: 'ssr-native-declaration-imports' },
  parseForESLint(text) {
    const span = (start, end) => ({ range: [start, end], loc: { start: locOf(text, start), end: locOf(text, end) } });
    const body = [];
    for (const m of text.matchAll(/\b(from\s*|import\s*\(\s*|import\s+)(['"])([^'"\n]+)\2/g)) {
      const start = m.index + m[1].length;
      const source = { type: 'Literal', value: m[3], raw: m[2] + m[3] + m[2], ...span(start, start + m[3].length + 2) };
      const whole = span(m.index, start + m[3].length + 2);
      body.push(
        m[1].includes('(')
          ? { type: 'ExpressionStatement', expression: { type: 'ImportExpression', source, ...whole }, ...whole }
          : { type: 'ImportDeclaration', specifiers: [], source, ...whole },
      );
    }
    const ast = { type: 'Program', sourceType: 'module', body, tokens: [], comments: [], ...span(0, text.length) };
    return { ast };
  },
};

module.exports = [
  {
    ignores: [
      'node_modules/**',
      'build/**',
      'build-*/**',
      'dist/**',
      'prebuilds/**',
      'test/fixtures/angular-app/**',
      'test/fixtures/angular22-app/**',
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
  {
    files: ['lib/**/*.d.ts'],
    languageOptions: { parser: declarationImports, sourceType: 'module' },
  },
  ...importRule,
];
