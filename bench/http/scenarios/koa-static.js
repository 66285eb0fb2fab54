'use strict';
// Koa 3: koa-static 5 (+ koa-etag + koa-conditional-get), koa-static-cache 5 (buffer: true) and
// ssr-native/koa serve() (+ etag() + conditional()), 1 KB and 64 KB files, full GETs and
// revalidations (If-None-Match with the tag each server gives out: 304s).
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const script = path.join(__dirname, '..', 'servers', 'koa-static.js');
const SIZES = { '1kb.js': 1024, '64kb.js': 64 * 1024 };

// The tree every server serves, made once when the scenario loads; fixed content and mtime, so
// each implementation's ETag is known in advance.
function makeTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-koa-static-'));
  const line = 'export function f(a, b) { return a * 31 + b ^ 0x5bd1e995; } // padding\n';
  const when = new Date('2024-05-06T07:08:09Z');
  const tags = {};
  for (const [name, size] of Object.entries(SIZES)) {
    const body = Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
    const file = path.join(root, name);
    fs.writeFileSync(file, body);
    fs.utimesSync(file, when, when);
    const hex = body.length.toString(16);
    tags[name] = {
      'koa-static': `W/"${hex}-${when.getTime().toString(16)}"`, // koa-etag: size-mtime
      'koa-static-cache': `"${crypto.createHash('md5').update(body).digest('base64')}"`,
      'ssr-native': `W/"${hex}-${zlib.crc32(body).toString(16).padStart(8, '0')}"`,
    };
  }
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  return { root, tags };
}

const { root, tags } = makeTree();
const IMPLS = [
  ['koa-static 5 + koa-etag + koa-conditional-get', 'koa-static'],
  ['koa-static-cache 5 (buffer: true)', 'koa-static-cache'],
  ['ssr-native serve() + etag() + conditional()', 'ssr-native'],
];
// STATIC_BASELINE_LIB=/other/checkout/lib: that checkout's serve() too (before/after)
const BASELINE_LIB = process.env.STATIC_BASELINE_LIB;
if (BASELINE_LIB) IMPLS.push(['ssr-native serve(), baseline lib', 'ssr-native', { STATIC_LIB: BASELINE_LIB }]);

function cases() {
  const out = [];
  for (const name of Object.keys(SIZES)) {
    const label = name === '1kb.js' ? '1 KB' : '64 KB';
    const urlPath = `/${name}`;
    out.push({
      name: `${label} file, GET ${urlPath}`,
      request: { path: urlPath },
      reference: 'bare in-memory Koa handler',
      variants: [
        ...IMPLS.map(([variantName, impl, env], i) => ({
          name: variantName,
          script,
          env: { KOA_STATIC_IMPL: impl, STATIC_ROOT: root, ...env },
          baseline: i === 0,
        })),
        { name: 'bare in-memory Koa handler', script, env: { KOA_STATIC_IMPL: 'memory', STATIC_ROOT: root } },
      ],
    });
    out.push({
      name: `${label} file, GET ${urlPath} with If-None-Match (304)`,
      request: { path: urlPath },
      variants: IMPLS.map(([variantName, impl, env], i) => ({
        name: variantName,
        script,
        env: { KOA_STATIC_IMPL: impl, STATIC_ROOT: root, ...env },
        baseline: i === 0,
        expectNon2xx: true,
        request: { path: urlPath, headers: { 'if-none-match': tags[name][impl] } },
      })),
    });
  }
  return out;
}

module.exports = {
  name: 'koa-static',
  order: 33,
  headline: '1 KB file, GET /1kb.js',
  question:
    'Koa 3: requests/s of koa-static 5 (+ koa-etag + koa-conditional-get), koa-static-cache 5 (buffer: true) and ssr-native serve() (+ etag() + conditional()), for full GETs and 304 revalidations.',
  cases: cases(),
};
