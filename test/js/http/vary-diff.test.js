'use strict';
// lib/http/vary.js's `vary` flavour (what ssr-native/compression adds) against the `vary` 1.1.2
// package compression 1.8 calls (its own copy, loaded from compression's folder), on seeded
// Vary values: absent, empty, `*`, lists with spaces, case and duplicates, arrays of values.
const test = require('node:test');
const assert = require('node:assert/strict');
const { varyAcceptEncoding } = require('../../../lib/http/vary');
const { mulberry32 } = require('../helpers/seeded-random');

const vary = require(require.resolve('vary', { paths: [require.resolve('compression')] }));

// the part of a node:http response both read and write
function headerBag(value) {
  const headers = value === undefined ? {} : { vary: value };
  return {
    getHeader: (name) => headers[name.toLowerCase()],
    setHeader: (name, v) => {
      headers[name.toLowerCase()] = v;
    },
    value: () => headers.vary,
  };
}

const NAMES = ['Accept-Encoding', 'accept-encoding', 'ACCEPT-ENCODING', 'Origin', 'Cookie', '*', 'User-Agent', ''];
const SEPARATORS = [',', ', ', ' ,', ' , ', ',  '];

test('the same Vary as the vary package for seeded values', () => {
  const seed = 9111;
  const random = mulberry32(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const list = () => {
    let out = pick([' ', '']) + pick(NAMES);
    const more = Math.floor(random() * 3);
    for (let i = 0; i < more; i++) out += pick(SEPARATORS) + pick(NAMES);
    return out + pick(['', ' ']);
  };
  for (let i = 0; i < 5000; i++) {
    const shape = random();
    const value = shape < 0.1 ? undefined : shape < 0.8 ? list() : [list(), list()];
    const ours = headerBag(value);
    const theirs = headerBag(value);
    varyAcceptEncoding(ours);
    vary(theirs, 'Accept-Encoding');
    assert.deepEqual(ours.value(), theirs.value(), `seed ${seed}, case ${i}: ${JSON.stringify(value)}`);
  }
});
