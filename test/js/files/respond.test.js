'use strict';
// lib/files/respond.js: the steps it takes around files/answer.js, in their order, on stand-ins
// for the engine and the response (the adapters' suites compare the result with the peers).
const { test } = require('node:test');
const assert = require('node:assert');
const { respond, prepareSend } = require('../../../lib/files/respond');
const { makeRecord } = require('../../../lib/files/record');
const { WHOLE, NONE } = require('../../../lib/files/answer');
const { sendConfig } = require('../../../lib/files/send-config');

const BODY = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
const GZIPPED = Buffer.from('not really gzip');
const STAT = { size: BODY.length, mtimeMs: Date.UTC(2024, 0, 1) };

function recordOf(compressible) {
  const result = { id: 1, body: BODY, etag: '"identity"', stat: STAT };
  return makeRecord('/srv/a.txt', result, 'text/plain; charset=utf-8', undefined, compressible);
}

// an engine holding one gzip variant, picked when the request's Accept-Encoding names gzip
const engine = {
  variant: (record, accept) => (accept === 'gzip' ? { body: GZIPPED, etag: '"gzip"', encoding: 'gzip' } : undefined),
};

// node's ServerResponse as send reads it: its headers and status
function responseOf() {
  const headers = new Map();
  return {
    statusCode: 200,
    getHeader: (name) => headers.get(name.toLowerCase()),
    setHeader: (name, value) => headers.set(name.toLowerCase(), value),
  };
}

const config = sendConfig({ maxage: 0 }, '/srv');

test('respond: the accepted variant, with Vary before setHeaders and both before the answer', () => {
  const seen = [];
  const setHeaders = (res, filePath) => {
    seen.push([filePath, res.getHeader('Vary')]);
    res.setHeader('Cache-Control', 'no-store');
  };
  const how = { options: config, engine, prepare: prepareSend(setHeaders) };
  const res = responseOf();
  const request = { method: 'GET', headers: { 'accept-encoding': 'gzip' } };
  const a = respond('send', request, res, recordOf(true), how);
  assert.deepStrictEqual(seen, [['/srv/a.txt', 'Accept-Encoding']]);
  assert.strictEqual(a.status, 200);
  assert.strictEqual(a.span, WHOLE);
  assert.strictEqual(a.file.encoding, 'gzip');
  assert.strictEqual(a.body, GZIPPED);
  assert.strictEqual(a.headers['Content-Encoding'], 'gzip');
  assert.strictEqual(a.headers.ETag, '"gzip"');
  // send leaves a header setHeaders set alone
  assert.ok(!('Cache-Control' in a.headers));
});

test('respond: a range is the part of the body its span names', () => {
  const how = { options: config, engine, prepare: prepareSend(undefined) };
  const request = { method: 'GET', headers: { range: 'bytes=2-5' } };
  const a = respond('send', request, responseOf(), recordOf(true), how);
  assert.strictEqual(a.status, 206);
  assert.deepStrictEqual(a.span, { start: 2, end: 5 });
  assert.strictEqual(a.body.toString(), '2345');
});

test('respond: a file passed gets no variant and no Vary; no content has no body', () => {
  const how = { options: config, engine, prepare: prepareSend(undefined) };
  const res = responseOf();
  const record = recordOf(true);
  const request = { method: 'GET', headers: { 'accept-encoding': 'gzip', 'if-none-match': '"identity"' } };
  const a = respond('send', request, res, record, how, record);
  assert.strictEqual(res.getHeader('Vary'), undefined);
  assert.strictEqual(a.status, 304);
  assert.strictEqual(a.span, NONE);
  assert.strictEqual(a.body, undefined);
});

// a file streamed from disk: no record, its path and the descriptor's stats on the file
function streamedFile() {
  const stats = { size: 100, mtime: new Date(STAT.mtimeMs), isFile: () => true };
  const lastModified = stats.mtime.toUTCString();
  return { path: '/srv/big', stats, size: 100, etag: '"s"', lastModified, type: 'text/plain' };
}

test('respond: a file not in memory (no record) has no body, only its span', () => {
  const file = streamedFile();
  const request = { method: 'GET', headers: { range: 'bytes=10-19' } };
  const a = respond('node-server', request, undefined, null, { options: undefined }, file);
  assert.strictEqual(a.status, 206);
  assert.deepStrictEqual(a.span, { start: 10, end: 19 });
  assert.strictEqual(a.file, file);
  assert.strictEqual(a.body, undefined);
});

test('respond: with no record, setHeaders gets the streamed file: its path and stats, then send reads it', () => {
  const seen = [];
  const setHeaders = (res, filePath, stats) => {
    seen.push([filePath, stats]);
    res.setHeader('Last-Modified', 'Mon, 01 Jan 2000 00:00:00 GMT');
  };
  const how = { options: config, engine, prepare: prepareSend(setHeaders) };
  const res = responseOf();
  const file = streamedFile();
  const request = { method: 'GET', headers: { 'accept-encoding': 'gzip' } };
  const a = respond('send', request, res, null, how, file);
  assert.deepStrictEqual(seen, [['/srv/big', file.stats]]);
  assert.strictEqual(seen[0][1], file.stats);
  // no variant and no Vary for a file passed
  assert.strictEqual(res.getHeader('Vary'), undefined);
  assert.strictEqual(a.file, file);
  assert.strictEqual(a.status, 200);
  assert.strictEqual(a.span, WHOLE);
  assert.strictEqual(a.body, undefined);
  // send keeps the Last-Modified setHeaders set
  assert.ok(!('Last-Modified' in a.headers));
});
