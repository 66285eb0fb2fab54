'use strict';
// node:http: serve-static 2.2.1 vs ssr-native's serveStatic, 1 KB / 64 KB / 1 MB.
const path = require('path');
const { underBun } = require('../lib/runtime');

const script = path.join(__dirname, '..', 'servers', 'static.js');
const FRAMEWORK = 'http';
const variant = (name, impl, extra = {}) => ({
  name,
  script,
  env: { STATIC_FRAMEWORK: FRAMEWORK, STATIC_IMPL: impl },
  ...extra,
});
// The 1 MB case (streamed from disk past maxFileSize) runs in --full only.
const sizes = [
  ['1 KB', '/1kb.js'],
  ['64 KB', '/64kb.js'],
  ['1 MB', '/1mb.js', { fullOnly: true }],
];

module.exports = {
  name: 'http-static',
  order: 31,
  question:
    'node:http: requests/s of serve-static 2.2.1 vs ssr-native serveStatic (and bare in-memory handlers: 2 headers, and all 6 that serve-static sends) per file size.',
  cases: sizes.map(([label, p, extra]) => ({
    ...extra,
    name: `${label} file, GET ${p}`,
    request: { path: p },
    reference: 'bare in-memory handler',
    variants: [
      variant('serve-static 2.2.1', 'serve-static', { baseline: true }),
      variant('ssr-native serveStatic', 'ssr-native'),
      variant('bare in-memory handler', 'memory'),
      // Under Bun, its own file serving (not node:http): what a Bun user compares with
      ...(underBun()
        ? [
            variant('Bun.serve static routes', 'bun-routes', { peer: true }),
            variant('Bun.serve new Response(Bun.file())', 'bun-file', { peer: true }),
          ]
        : []),
      variant('in-memory, same headers as serve-static', 'memory-headers', { fullOnly: true }), // a ceiling: --full only
      // STATIC_BASELINE_LIB=/other/checkout/lib: that checkout's serveStatic too (before/after)
      ...(process.env.STATIC_BASELINE_LIB
        ? [
            variant('ssr-native serveStatic, baseline lib', 'ssr-native', {
              env: {
                STATIC_FRAMEWORK: FRAMEWORK,
                STATIC_IMPL: 'ssr-native',
                STATIC_LIB: process.env.STATIC_BASELINE_LIB,
              },
            }),
          ]
        : []),
    ],
  })),
};
