'use strict';
// String bodies that repeat (Koa's `ctx.body = html`): encodeText answers a string whose
// compressed form was a content-cache hit from the bytes and CRC remembered for it, without
// encoding the string again; it answers every string exactly as encodeWhole answers its UTF-8
// bytes; unique strings are never remembered; the memo is bounded by entries and characters.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { createEncoder } = require('../../../lib/compression/encoders');
const { encodeText, encodeWhole } = require('../../../lib/compression/whole-body');
const { TextBodies, textBodiesOf } = require('../../../lib/compression/text-bodies');
const { mulberry32 } = require('../helpers/seeded-random');

const gzip = createEncoder('gzip', {});

function encodeTextAsync(cache, text, tag) {
  return new Promise((resolve, reject) => {
    const hit = encodeText(cache, gzip, text, tag, (err, out) => (err ? reject(err) : resolve({ out, hit: false })));
    if (hit !== undefined) resolve({ out: hit, hit: true });
  });
}

// Buffer.from calls made by fn (the encoding of a string to bytes), of strings of at least
// minLength characters (a framework encodes small strings of its own).
async function countingBufferFrom(fn, minLength = 0) {
  const original = Buffer.from;
  let calls = 0;
  Buffer.from = function from(...args) {
    if (typeof args[0] === 'string' && args[0].length >= minLength) calls++;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    Buffer.from = original;
  }
  return calls;
}

const page = (n) => `<html><body>${'<p>the same layout</p>'.repeat(2000)}<main>page ${n} é</main></body></html>`;

test('a repeated string is answered from the memo once its compressed form was a hit, with no encoding', async () => {
  const cache = new ContentCache({ minUses: 1 });
  const text = page(1);
  const first = await encodeTextAsync(cache, text);
  assert.equal(first.hit, false);
  assert.equal(textBodiesOf(cache).get(text), undefined, 'a miss is not remembered');
  const second = await encodeTextAsync(cache, text);
  assert.equal(second.hit, true);
  assert.ok(textBodiesOf(cache).get(text) !== undefined, 'a hit is remembered');
  // the same string object, and an equal string built anew (a render of the same page)
  for (const again of [text, page(1)]) {
    let answer;
    const encodings = await countingBufferFrom(async () => {
      answer = await encodeTextAsync(cache, again);
    });
    assert.equal(encodings, 0, 'no Buffer.from of the string');
    assert.equal(answer.hit, true);
    assert.equal(zlib.gunzipSync(answer.out).toString(), text);
  }
  assert.equal(cache.stats().compressions, 1);
});

test("the memo holds the cache's own copy of the bytes: its hit is found by identity, and stays right after an eviction", async () => {
  const cache = new ContentCache({ minUses: 1 });
  const text = page(2);
  await encodeTextAsync(cache, text);
  await encodeTextAsync(cache, text);
  const known = textBodiesOf(cache).get(text);
  const bytes = Buffer.from(text);
  assert.equal(cache.originalOf(bytes, known.crc, gzip), known.bytes, 'the cache answers its stored copy');
  // a hit on the stored copy itself needs no compare: Buffer#equals is not called
  const equals = Buffer.prototype.equals;
  let compares = 0;
  Buffer.prototype.equals = function counted(other) {
    compares++;
    return equals.call(this, other);
  };
  try {
    assert.equal((await encodeTextAsync(cache, text)).hit, true);
  } finally {
    Buffer.prototype.equals = equals;
  }
  assert.equal(compares, 0);
  // other bytes under the same key are no copy of it; after the entry is gone the memo's bytes
  // are compressed and stored again, and the answer is still the text
  const other = Buffer.from(bytes);
  other[10] ^= 1;
  assert.equal(cache.originalOf(other, known.crc, gzip), undefined);
  cache.clear();
  const again = await encodeTextAsync(cache, text);
  assert.equal(again.hit, false);
  assert.equal(zlib.gunzipSync(again.out).toString(), text);
  assert.equal((await encodeTextAsync(cache, text)).hit, true);
});

test('Fastify: a repeated string payload is compressed once and then answered with no encoding', async () => {
  const Fastify = require('fastify');
  const { fastifyCompress } = require('../../../lib/fastify');
  const app = Fastify();
  const cache = new ContentCache({ minUses: 1 });
  await app.register(fastifyCompress, { cache });
  const text = page(3);
  app.get('/', (request, reply) => reply.type('text/html; charset=utf-8').send(text));
  await app.ready();
  try {
    const ask = () => app.inject({ url: '/', headers: { 'accept-encoding': 'gzip' } });
    for (let i = 0; i < 2; i++) await ask(); // compressed, then a hit (remembered)
    let answer;
    const encodings = await countingBufferFrom(async () => {
      answer = await ask();
    }, text.length);
    assert.equal(encodings, 0, 'no Buffer.from of the page');
    assert.equal(answer.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(answer.rawPayload).toString(), text);
    assert.equal(cache.stats().compressions, 1);
  } finally {
    await app.close();
  }
});

test('encodeText answers every string as encodeWhole answers its UTF-8 bytes (seeded, 300 strings)', async () => {
  const seed = 0x5eed37;
  const random = mulberry32(seed);
  const ours = new ContentCache({ minUses: 1, maxEntries: 16 });
  const theirs = new ContentCache({ minUses: 1, maxEntries: 16 });
  // a few pages of one length that differ late (the memo's lookups compare such strings), and unicode
  // (all of one length in characters; the snowman is 3 bytes in UTF-8)
  const texts = Array.from(
    { length: 12 },
    (_, i) => `${'<div>shared head</div>'.repeat(900)}${String(i).padStart(2, '0')}${i >= 6 ? '☃' : 'x'}`,
  );
  for (let i = 0; i < 300; i++) {
    const text = texts[Math.floor(random() * texts.length)];
    const a = await encodeTextAsync(ours, text);
    const b = await new Promise((resolve, reject) => {
      const hit = encodeWhole(theirs, gzip, Buffer.from(text), undefined, (err, out) =>
        err ? reject(err) : resolve(out),
      );
      if (hit !== undefined) resolve(hit);
    });
    assert.deepEqual(zlib.gunzipSync(a.out), Buffer.from(text), `seed ${seed} step ${i}`);
    assert.deepEqual(a.out, b, `seed ${seed} step ${i}`);
  }
  // the memo outlives the cache's entries: a remembered string whose entry was evicted is compressed again
  ours.clear();
  const text = texts.find((t) => textBodiesOf(ours).get(t) !== undefined);
  const again = await encodeTextAsync(ours, text);
  assert.equal(again.hit, false);
  assert.equal(zlib.gunzipSync(again.out).toString(), text);
});

test('unique strings are never remembered', async () => {
  const cache = new ContentCache({ minUses: 1 });
  for (let i = 0; i < 50; i++) await encodeTextAsync(cache, page(i));
  assert.equal(textBodiesOf(cache).size, 0);
  assert.equal(cache.stats().hits, 0);
});

test('the memo is bounded by entries and by characters, oldest out first', () => {
  const memo = new TextBodies({ maxEntries: 3, maxChars: 800 });
  const bytes = Buffer.alloc(0);
  for (const t of ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10), 'd'.repeat(10)]) memo.remember(t, bytes, 0);
  assert.deepEqual(
    [...memo.texts.keys()].map((t) => t[0]),
    ['b', 'c', 'd'],
  );
  memo.remember('e'.repeat(100), bytes, 0); // the largest one string may be: maxChars / 8
  memo.remember('f'.repeat(100), bytes, 0);
  assert.deepEqual(
    [...memo.texts.keys()].map((t) => t[0]),
    ['d', 'e', 'f'],
  );
  memo.remember('g'.repeat(101), bytes, 0); // larger: not remembered
  assert.equal(memo.get('g'.repeat(101)), undefined);
  assert.ok(memo.texts.bytes <= 800 && memo.texts.size <= 3);
  assert.equal(
    memo.texts.bytes,
    [...memo.texts.keys()].reduce((n, t) => n + t.length, 0),
  );
});

test('cache: false encodes every string (no memo)', async () => {
  const text = page(2);
  const calls = await countingBufferFrom(async () => {
    for (let i = 0; i < 3; i++) await encodeTextAsync(null, text);
  });
  assert.equal(calls, 3);
});

test('at most maxSameLength strings of one length (a lookup compares each), the oldest of that length out', () => {
  const memo = new TextBodies({ maxEntries: 64, maxChars: 1 << 20, maxSameLength: 4 });
  const bytes = Buffer.alloc(0);
  memo.remember('x'.repeat(7), bytes, 0);
  for (let i = 0; i < 10; i++) memo.remember(`page ${String(i).padStart(3, '0')}`, bytes, 0); // all 8 characters
  memo.remember('y'.repeat(9), bytes, 0);
  assert.deepEqual(
    [...memo.texts.keys()],
    ['x'.repeat(7), 'page 006', 'page 007', 'page 008', 'page 009', 'y'.repeat(9)],
  );
  assert.deepEqual(
    [...memo.byLength].map(([n, texts]) => [n, texts.length]),
    [
      [7, 1],
      [8, 4],
      [9, 1],
    ],
  );
  assert.equal(memo.texts.bytes, 7 + 4 * 8 + 9);
  // forgetting by the other bounds keeps the per-length counts
  const small = new TextBodies({ maxEntries: 2, maxChars: 1 << 20, maxSameLength: 4 });
  for (const t of ['aa', 'bb', 'ccc']) small.remember(t, bytes, 0);
  assert.deepEqual(
    [...small.byLength].map(([n, texts]) => [n, texts.length]),
    [
      [2, 1],
      [3, 1],
    ],
  );
});
