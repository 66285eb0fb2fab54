'use strict';
// The one decision every static adapter makes with `dictionary` on (Express serveStatic, Koa
// serve()/send(), fastifyStatic, Hono serveStatic), right before it writes a file held in memory:
// whether the file is offered as a dictionary for its own later versions (RFC 9842, a content hash
// in its name: asset-dictionaries.js), and whether this request gets a dcz delta against a file
// offered before. The answer is a value; each adapter writes it in its framework's shape and
// keeps its own conditional-request and HEAD handling, so a delta is revalidated on its own
// validator exactly as the file is on the file's.
//
// No delta, and so the usual answer, for: a precompressed sibling or a body not in memory (the
// dictionary's hash is of the identity bytes), a type nobody compresses (images, fonts: their
// bytes do not repeat), a Range request (its bytes count the file's, not the delta's), a client
// without `dcz` or naming no file offered here.
const { acceptsDcz } = require('./dictionary-transport');
const { encodeWhole } = require('./whole-body');
const { sharedCache } = require('./content-cache');
const { isCompressible } = require('../files/encoding');
const { contentTypeOf } = require('../files/record');

// A delta depends on both request headers, and so does every answer of an offered file.
const VARY = ['Accept-Encoding', 'Available-Dictionary'];

/**
 * The decision for one answer of `record` (a StaticEngine record: path, body, etag, encoding) at
 * `url` (the request's path as the client sent it; a query is ignored), given the request's
 * `headers` (lower-case names, as node's req.headers). `assets`: an AssetDictionaries, or null
 * (the option is off).
 *
 * Returns null when nothing changes. Otherwise { vary, useAsDictionary, delta }: `vary`, the
 * names Vary must list, and `useAsDictionary`, the header's value, go on every answer of this
 * file; `delta` is null (answer the file as usual) or { contentEncoding: 'dcz', etag,
 * dictionary, encoder }: the answer is encodeDelta()'s bytes with that Content-Encoding and ETag.
 */
function assetDelta(assets, url, record, headers) {
  if (assets === null || record.encoding !== undefined || record.body === undefined) return null;
  if (!isCompressible(contentTypeOf(record.path))) return null;
  const useAsDictionary = assets.offer(pathOf(url), record.body);
  if (useAsDictionary === undefined) return null;
  const dictionary =
    headers.range === undefined
      ? assets.choose(headers['accept-encoding'], headers['available-dictionary'], acceptsDcz)
      : null;
  if (dictionary === null) return { vary: VARY, useAsDictionary, delta: null };
  return {
    vary: VARY,
    useAsDictionary,
    delta: {
      contentEncoding: 'dcz',
      // the delta is another representation of the file: a validator of its own, per dictionary
      etag: deltaTag(record.etag, dictionary),
      dictionary,
      encoder: dictionary.encoder,
    },
  };
}

/**
 * The delta's bytes for `body` (the file's identity bytes): returned now on a content-cache hit,
 * else undefined and callback(err, encoded) later (never on the same tick).
 */
function encodeDelta(delta, body, callback) {
  return encodeWhole(sharedCache(), delta.encoder, body, undefined, callback);
}

/** encodeDelta as a promise of the bytes, or of null when encoding failed (answer the file). */
function encodeDeltaAsync(delta, body) {
  let settle;
  const pending = new Promise((resolve) => {
    settle = resolve;
  });
  const hit = encodeDelta(delta, body, (err, encoded) => settle(err ? null : encoded));
  return hit !== undefined ? Promise.resolve(hit) : pending;
}

function deltaTag(etag, dictionary) {
  const suffix = `-dcz${dictionary.id.slice(0, 8)}"`;
  return etag.endsWith('"') ? etag.slice(0, -1) + suffix : etag;
}

function pathOf(url) {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

module.exports = { assetDelta, encodeDelta, encodeDeltaAsync };
