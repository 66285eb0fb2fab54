'use strict';
// Express 5 laid out like a generated Angular server (or a typical Express app): the static
// middleware mounted first ({ maxAge: '1y', index: false, redirect: false }), then a JSON route.
// Every request that is not a file (API calls, pages) passes through the static middleware
// first: what does that cost per request, against the same app with no static middleware?
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'static.js');
const variant = (name, impl, extra = {}) => ({
  name,
  script,
  env: { STATIC_FRAMEWORK: 'express', STATIC_IMPL: impl, STATIC_API: '1', ...extra },
});

module.exports = {
  name: 'express-static-fallthrough',
  order: 31,
  question:
    'Express 5, static middleware mounted first: server CPU per request of a JSON route behind express.static vs ssr-native serveStatic vs no static middleware.',
  cases: [
    {
      name: 'API route behind the static middleware, GET /api/users',
      request: { path: '/api/users' },
      reference: 'no static middleware',
      variants: [
        variant('express.static (serve-static 2.2.1)', 'serve-static', { baseline: true }),
        variant('ssr-native serveStatic', 'ssr-native'),
        variant('no static middleware', 'none'),
        // STATIC_BASELINE_LIB=/other/checkout/lib: that checkout's serveStatic too (before/after)
        ...(process.env.STATIC_BASELINE_LIB
          ? [
              variant('ssr-native serveStatic, baseline lib', 'ssr-native', {
                STATIC_LIB: process.env.STATIC_BASELINE_LIB,
              }),
            ]
          : []),
      ],
    },
  ],
};
