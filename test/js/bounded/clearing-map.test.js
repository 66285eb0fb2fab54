'use strict';
// ClearingMap: never more than maxEntries keys, whatever the keys; a present key is replaced in
// place (no clearing), a new key past the bound empties it first.
const test = require('node:test');
const assert = require('node:assert/strict');
const { ClearingMap } = require('../../../lib/bounded/clearing-map');

test('never holds more than maxEntries keys over a seeded stream of keys', () => {
  let seed = 20261207;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
  const map = new ClearingMap(16);
  for (let i = 0; i < 5000; i++) {
    const key = `k${next() % 64}`;
    map.set(key, i);
    assert.ok(map.size <= 16, `seed step ${i}: ${map.size} keys after setting ${key}`);
    assert.equal(map.get(key), i, `step ${i}: ${key} not readable right after its set`);
  }
});

test('a present key is replaced without emptying the map; a new one empties it when full', () => {
  const map = new ClearingMap(3);
  map.set('a', 1).set('b', 2).set('c', 3);
  map.set('b', 20);
  assert.deepEqual(
    [...map],
    [
      ['a', 1],
      ['b', 20],
      ['c', 3],
    ],
  );
  map.set('d', 4);
  assert.deepEqual([...map], [['d', 4]]);
});
