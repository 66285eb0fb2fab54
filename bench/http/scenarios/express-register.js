'use strict';
// What does `node -r ssr-native/register` give an unmodified Express 5.3 app (content-type 2.x
// through body-parser/type-is/Express, its default ETag, express.static), route by route?
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'express-register.js');
const register = path.join(__dirname, '..', '..', '..', 'lib', 'register', 'index.js');
// `-r` goes through NODE_OPTIONS: the harness starts every server as `node <script>`. Bun ignores
// NODE_OPTIONS: under --runtime bun the same preload goes through BUN_OPTIONS.
const plain = { name: 'express 5.3 as installed', script, env: { NODE_OPTIONS: '', BUN_OPTIONS: '' }, baseline: true };
const registered = {
  name: 'same app, -r ssr-native/register',
  script,
  env: { NODE_OPTIONS: `--require=${register}`, BUN_OPTIONS: `--preload ${register}` },
};

module.exports = {
  name: 'express-register',
  order: 12,
  question:
    'An unmodified Express 5.3 app with and without -r ssr-native/register: requests/s and server CPU per request, per route.',
  cases: [
    { name: 'JSON API, GET /api/items', request: { path: '/api/items' }, variants: [plain, registered] },
    { name: '75 KB res.send page, GET /page', request: { path: '/page' }, variants: [plain, registered] },
    { name: 'express.static 1 KB script, GET /main.js', request: { path: '/main.js' }, variants: [plain, registered] },
    {
      name: 'express.static 16 KB stylesheet, GET /styles.css',
      request: { path: '/styles.css' },
      variants: [plain, registered],
    },
  ],
};
