'use strict';
// ns per call of each etag function on one body size; run pinned by scenarios/etag.js.
// Usage: node micro/etag.js <bytes> <iterations>  -> JSON { name: nsPerCall }
const crypto = require('crypto');
const zlib = require('zlib');
const { etag } = require('../../..');

const bytes = Number(process.argv[2]);
const iterations = Number(process.argv[3]);
const body = Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 131 + 7) & 0xff));

const candidates = {
  // What Express's default weak etag (the etag package) does: SHA-1, base64, 27 chars.
  'express default (SHA-1)': (b) =>
    `W/"${b.length.toString(16)}-${crypto.createHash('sha1').update(b).digest('base64').substring(0, 27)}"`,
  'zlib.crc32 in JS': (b) => `W/"${b.length.toString(16)}-${zlib.crc32(b).toString(16).padStart(8, '0')}"`,
  'ssr-native etag': (b) => etag(b),
};

let sink = 0;
function measure(fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink += fn(body).length;
  return Number(process.hrtime.bigint() - start) / iterations;
}

const results = {};
for (const [name, fn] of Object.entries(candidates)) measure(fn); // warm up every candidate first
for (const [name, fn] of Object.entries(candidates)) results[name] = measure(fn);
process.stdout.write(JSON.stringify({ results, sink }) + '\n');
