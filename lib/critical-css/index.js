'use strict';
// ssr-native/critical-css: Angular's critical-CSS inlining (beasties with the options of
// @angular/ssr's InlineCriticalCssProcessor) on the native engine, for any server.
// - inlineCriticalCss(html, options): string in, string out; Buffer in, Buffer out.
// - criticalCss(options): the middleware for node:http and Express 4/5 is the package entry's
//   (lib/express/critical-css.js); Koa, Fastify and Hono: `criticalCss` in ssr-native/koa,
//   /fastify, /hono, on the same engine.
// - CriticalCss: one engine with its stylesheet reads, memo and counters, to share among them.
const { CriticalCss, ANGULAR_DEFAULTS } = require('./critical-css');
const { invalidType } = require('../validate');
const { BoundedLru } = require('../bounded/lru');

// inlineCriticalCss keeps one CriticalCss per distinct set of options, the most recently used
// few: a server has one or two; a caller that varies them per page gets new ones, evicted.
const MAX_SHARED = 8;
const shared = new BoundedLru({ maxEntries: MAX_SHARED, onEvict: (key, engine) => engine.close() });
const objectIds = new WeakMap(); // a FileCache passed as `cache` is part of the key by identity
let nextObjectId = 1;

function keyPart(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  let id = objectIds.get(value);
  if (id === undefined) objectIds.set(value, (id = nextObjectId++));
  return { object: id };
}

function sharedFor(options) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  if (options instanceof CriticalCss) return options;
  const key = JSON.stringify(
    Object.keys(options)
      .sort()
      .map((k) => [k, keyPart(options[k])]),
  );
  let found = shared.get(key);
  if (found !== undefined) return found;
  found = new CriticalCss({ ...options, name: options.name || 'inlineCriticalCss' });
  shared.set(key, found);
  return found;
}

/**
 * `html` (a string or a Buffer of UTF-8) with the critical CSS of its stylesheets inlined as
 * Angular's InlineCriticalCssProcessor inlines it; the same kind comes back. A page the engine
 * cannot process comes back as it was. `options`: { browserDistFolder, ...Angular's beasties
 * options } or a CriticalCss.
 */
function inlineCriticalCss(html, options) {
  if (typeof html !== 'string' && !Buffer.isBuffer(html)) throw invalidType('html', 'a string or a Buffer', html);
  return sharedFor(options).processSync(html);
}

module.exports = { inlineCriticalCss, CriticalCss, ANGULAR_DEFAULTS };
