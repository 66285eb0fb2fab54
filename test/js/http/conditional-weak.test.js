'use strict';
// RFC 9110 13.1.2's weak If-None-Match comparison the response cache answers 304 by
// (lib/http/conditional.js weakEtagMatches, read through its isNotModified).
const test = require('node:test');
const assert = require('node:assert/strict');
const { weakEtagMatches, isNotModified: notModified } = require('../../../lib/http/conditional');

const isNotModified = (headers, etag, lastModified) => notModified('GET', 200, headers, etag, lastModified);

const CASES = [
  ['*', '"a"', true],
  [' * ', 'W/"a"', true],
  ['"a"', '"a"', true],
  ['W/"a"', '"a"', true],
  ['"a"', 'W/"a"', true],
  ['W/"a"', 'W/"a"', true],
  ['"x", "a"', '"a"', true],
  ['"x",W/"a" ', '"a"', true],
  ['"x" ,  "a",', 'W/"a"', true],
  ['"b"', '"a"', false],
  ['"a', '"a"', false],
  ['"x", "ab"', '"a"', false],
  ['W/W/"a"', '"a"', false],
  ['', '"a"', false],
  ['"*"', '"a"', false],
];

test('weakEtagMatches: either side weak matches, lists and `*` as RFC 9110 13.1.2 reads them', () => {
  for (const [header, etag, expected] of CASES)
    assert.equal(weakEtagMatches(header, etag), expected, `If-None-Match ${JSON.stringify(header)} vs ${etag}`);
});

test('isNotModified: If-None-Match decides (weakly) and If-Modified-Since counts only without it', () => {
  const lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
  assert.equal(isNotModified({ 'if-none-match': 'W/"a"' }, '"a"', lastModified), true);
  assert.equal(isNotModified({ 'if-none-match': ['"x"', '"a"'] }, '"a"', lastModified), true);
  const later = 'Thu, 22 Oct 2015 07:28:00 GMT';
  assert.equal(isNotModified({ 'if-none-match': '"b"', 'if-modified-since': later }, '"a"', lastModified), false);
  assert.equal(isNotModified({ 'if-modified-since': later }, '"a"', lastModified), true);
  assert.equal(isNotModified({ 'if-modified-since': lastModified }, '"a"', later), false);
});
