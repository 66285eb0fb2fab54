'use strict';
// The critical-CSS page memo (on bounded/lru.js): rendered pages are kept only when seen twice,
// stored files at once; bounded by bytes and entries, least recently used first; cleared when the
// stylesheets' generation moves.
const test = require('node:test');
const assert = require('node:assert/strict');
const { PageMemo } = require('../../../lib/critical-css/page-memo');

function page(i, size = 100) {
  return Buffer.from(`<html>${String(i).padStart(4, '0')}${'x'.repeat(size)}</html>`);
}

function remember(memo, body, stored, generation = 1) {
  const { key, output } = memo.find(body, generation);
  if (output === undefined) memo.offer(key, body, Buffer.concat([body, Buffer.from('!')]), stored, generation);
  return output;
}

test('a rendered page is kept when seen a second time, a stored file at once', () => {
  const memo = new PageMemo({ maxBytes: 1 << 20, maxEntries: 8 });
  assert.equal(remember(memo, page(1), false), undefined);
  assert.equal(remember(memo, page(1), false), undefined); // second sight: stored now
  assert.equal(String(remember(memo, page(1), false)), `${page(1)}!`);
  assert.equal(remember(memo, page(2), true), undefined);
  assert.equal(String(remember(memo, page(2), true)), `${page(2)}!`);
  assert.deepEqual(memo.stats(), {
    memoPages: 2,
    memoBytes: 2 * (2 * page(1).length + 1),
    memoHits: 2,
    memoStores: 2,
    memoEvictions: 0,
  });
});

test('bounded by bytes and entries, least recently used first; a new generation clears it', () => {
  const entry = 2 * page(0).length + 1;
  const memo = new PageMemo({ maxBytes: entry * 3, maxEntries: 100 });
  for (let i = 0; i < 3; i++) remember(memo, page(i), true);
  remember(memo, page(0), true); // a hit: page 1 is now the least recently used
  remember(memo, page(3), true);
  const stats = memo.stats();
  assert.equal(stats.memoPages, 3);
  assert.ok(stats.memoBytes <= entry * 3);
  assert.equal(stats.memoEvictions, 1);
  assert.notEqual(memo.find(page(0), 1).output, undefined);
  assert.equal(memo.find(page(1), 1).output, undefined);
  assert.equal(memo.find(page(0), 2).output, undefined);
  assert.equal(memo.stats().memoPages, 0);

  const few = new PageMemo({ maxBytes: 1 << 20, maxEntries: 2 });
  for (let i = 0; i < 5; i++) remember(few, page(i), true);
  assert.equal(few.stats().memoPages, 2);
});
