'use strict';
// ns per call of each etag function on one body; run pinned by scenarios/etag.js.
// Usage: node micro/etag.js <bytes> <iterations> [kind]  -> JSON { results: { name: nsPerCall } }
// kind: buffer (default), ascii (a one-byte ASCII string), latin1 (one-byte with é, ü, ...),
// wide (ASCII text with one U+2014 near the end: a two-byte string, the worst case for the
// Latin-1 check where it is a regex, Node 20 and early 22), cjk (mostly CJK text). Time is the process's CPU time, not wall time, so
// other load on a shared machine inflates it less.
const crypto = require('crypto');
const zlib = require('zlib');
const { etag } = require('../../..');
const native = require('../../../lib/native');
const { renderPage } = require('../lib/page');

const bytes = Number(process.argv[2]);
const iterations = Number(process.argv[3]);
const kind = process.argv[4] || 'buffer';

function bodyOf() {
  if (kind === 'buffer') return Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 131 + 7) & 0xff));
  const page = renderPage(Math.max(bytes, 200)).slice(0, bytes);
  if (kind === 'ascii') return page;
  if (kind === 'latin1') return page.replace(/e/g, (m, i) => (i % 20 === 0 ? 'é' : m));
  if (kind === 'wide') return `${page.slice(0, page.length - 40)}\u2014${page.slice(page.length - 39)}`;
  if (kind === 'cjk') return page.replace(/[a-z]/g, (c) => String.fromCharCode(0x4e00 + c.charCodeAt(0)));
  throw new Error(`unknown kind ${kind}`);
}
const body = bodyOf();
const asBuffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
// A string with no code unit above U+00FF (lib/etag.js hashes those from a Latin-1 copy).
const latin1 = typeof body === 'string' && !/[^\x00-\xff]/.test(body);
const copyTarget = Buffer.allocUnsafe(latin1 ? body.length : 0);

const sha1Tag = (b) =>
  `W/"${b.length.toString(16)}-${crypto.createHash('sha1').update(b).digest('base64').substring(0, 27)}"`;
const zlibTag = (b) => `W/"${b.length.toString(16)}-${zlib.crc32(b).toString(16).padStart(8, '0')}"`;
const hasZlibCrc = typeof zlib.crc32 === 'function'; // Node >= 20.15 / 22.2
// Every CRC-32 path this CPU has, forced: the tag formatted in JS exactly as the zlib.crc32 row
// does, so against that row only the CRC (and the call) differ. etag() itself runs the path the
// dispatcher chose; these rows cost at least as much (a path-name argument, a JS-formatted tag).
const { active: activePath, available: crcPaths } = native.crc32Paths();
const pathTag = (name, b) =>
  `W/"${b.length.toString(16)}-${native.crc32WithPath(name, b).toString(16).padStart(8, '0')}"`;
const forcedPaths = Object.fromEntries(
  crcPaths.map((name) => [`crc32WithPath('${name}') tag in JS`, () => pathTag(name, body)]),
);

const candidates =
  kind === 'buffer'
    ? {
        'express default (SHA-1)': () => sha1Tag(body),
        ...(hasZlibCrc && { 'zlib.crc32 in JS': () => zlibTag(body) }),
        'ssr-native etag': () => etag(body),
        ...forcedPaths,
      }
    : {
        // The etag package (Express's default) on a string: Buffer.byteLength + SHA-1 of it.
        'express default (SHA-1)': () => sha1Tag(Buffer.from(body)),
        ...(hasZlibCrc && { 'zlib.crc32 in JS': () => zlibTag(Buffer.from(body)) }),
        'ssr-native etag(Buffer.from(s))': () => etag(Buffer.from(body)),
        'ssr-native etag(s)': () => etag(body),
        // Ablation: a one-byte text longer than lib/etag.js's 16 Ki slice, copied and hashed in
        // one piece as before slicing (the addon's own call, with lib/etag.js's Latin-1 check).
        ...(latin1 &&
          body.length > 16384 && {
            'ssr-native etag(s) in one piece (ablation)': () => native.latin1Utf8Tag(body, true, 0, 0),
          }),
        // Ablation: text beyond Latin-1 through V8's UTF-8 writer (the addon's entityTag), as
        // before lib/etag.js handed it to the addon's own UTF-16 transcoder.
        ...(!latin1 && {
          "ssr-native etag(s) via V8's UTF-8 writer (ablation)": () => native.entityTag(body, true, 0),
        }),
        'ssr-native etag, same bytes as a Buffer': () => etag(asBuffer),
        // Ablation, one-byte text: the runtime's copy of the string alone, no hash (latin1Write
        // into a reused Buffer: V8's WriteOneByte, the copy every Node-API or Buffer path makes).
        // Its time against the Buffer row is the floor of a copying etag(s).
        ...(latin1 && {
          "V8's copy of the string alone (ablation)": () => (copyTarget.latin1Write(body, 0), copyTarget),
        }),
      };

let sink = 0;
function measure(fn) {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) sink += fn().length;
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / iterations;
}

const results = {};
for (const fn of Object.values(candidates)) measure(fn); // warm up every candidate first
for (const [name, fn] of Object.entries(candidates)) results[name] = measure(fn);
process.stdout.write(JSON.stringify({ results, activePath, sink }) + '\n');
