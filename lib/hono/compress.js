'use strict';
// compress(options): a drop-in for hono/compress (hono 4.13) on the compression engine of
// ssr-native/compression. The same options (`encoding`, `threshold`, `contentTypeFilter`), the
// same codings (gzip and deflate: what CompressionStream offers), the same rules (206, an
// existing Content-Encoding or Transfer-Encoding, HEAD, a Content-Length under the threshold,
// the type filter, Cache-Control no-transform), the same negotiation and headers (Vary, a
// strong ETag made weak).
//
// What changes is a body known whole: a string or bytes that @hono/node-server's Response still
// holds (c.html, c.text, c.json, c.body(bytes), our serveStatic's cached Buffers; held-body.js
// says how that is read). It goes through the shared content cache and comes back as a new
// Response holding the compressed bytes, with their Content-Length: a body seen before costs
// no compression at all, a new one is compressed once in one shot with a sized window. Other
// bodies (streams) go through a CompressionStream, exactly as hono/compress does.
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder } = require('../compression/encoders');
const { cacheFrom } = require('../compression/content-cache');
const { compressible } = require('../http/compressible');
const { encodeWhole } = require('../compression/whole-body');
const { honoVary } = require('../http/vary');
const { heldBody } = require('./held-body');
const { tagOf } = require('./tags');

const CODINGS = ['gzip', 'deflate'];
// the statuses the Fetch API's Response refuses a body for
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const NO_TRANSFORM_REGEXP = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;

// hono's own compressible types (so the same responses are compressed), from the app's hono:
// loaded when a middleware is made; mime-db's flag where this hono has no such table.
function honoCompressibleTypes() {
  try {
    return require('hono/utils/compress').COMPRESSIBLE_CONTENT_TYPE_REGEX;
  } catch {
    return { test: (type) => Boolean(compressible(type)) };
  }
}

function addVary(c) {
  const vary = honoVary(c.res.headers.get('Vary'));
  if (vary !== undefined) c.header('Vary', vary);
}

function compress(options) {
  const threshold = options?.threshold ?? 1024;
  const candidates = options?.encoding ? [options.encoding] : CODINGS;
  const filter = options?.contentTypeFilter ?? honoCompressibleTypes();
  const typeAllowed =
    typeof filter === 'function' ? (type) => type && filter(type) : (type) => type && filter.test(type);
  const negotiate = createNegotiator(candidates, candidates, 'hono-compress');
  const cache = cacheFrom(options?.cache);
  const encoders = {};
  for (const coding of candidates) if (CODINGS.includes(coding)) encoders[coding] = createEncoder(coding, {});

  async function compressMiddleware(c, next) {
    await next();
    const res = c.res;
    const length = res.headers.get('Content-Length');
    if (
      res.status === 206 ||
      res.headers.has('Content-Encoding') ||
      res.headers.has('Transfer-Encoding') ||
      c.req.method === 'HEAD' ||
      (length && Number(length) < threshold) ||
      !typeAllowed(res.headers.get('Content-Type')) ||
      NO_TRANSFORM_REGEXP.test(res.headers.get('Cache-Control') || '')
    ) {
      return;
    }
    const coding = negotiate(c.req.header('Accept-Encoding'));
    // read before anything touches the response: c.header() would turn the held body into a stream
    const held = coding !== undefined && encoders[coding] !== undefined ? heldBody(res) : undefined;
    // A status that has no body (204, 304...) with one anyway is the handler's bug: hono's own
    // route (below) rebuilds the response, which throws as in hono/compress, and hono answers 500.
    if (held === undefined || held === null || NULL_BODY_STATUSES.has(res.status)) {
      addVary(c);
      if (coding === undefined || !c.res.body) return;
      // a stream (or a body this node-server does not hold): through a CompressionStream, as hono does
      c.res = new Response(c.res.body.pipeThrough(new CompressionStream(coding)), c.res);
      c.res.headers.delete('Content-Length');
      c.res.headers.set('Content-Encoding', coding);
      weakenTag(c.res.headers);
      return;
    }

    const bytes =
      typeof held === 'string' ? Buffer.from(held) : Buffer.from(held.buffer, held.byteOffset, held.byteLength);
    const tag = tagOf.get(res) ?? res.headers.get('ETag');
    let encoded;
    try {
      let settle;
      // the callback never runs synchronously, so `settle` is set before it is called
      const hit = encodeWhole(cache, encoders[coding], bytes, tag, (err, result) => settle(err, result));
      encoded =
        hit !== undefined
          ? hit
          : await new Promise((resolve, reject) => {
              settle = (err, result) => (err ? reject(err) : resolve(result));
            });
    } catch {
      // the body goes out as it came rather than not at all
      addVary(c);
      return;
    }
    const headers = new Headers(res.headers);
    const vary = honoVary(headers.get('Vary'));
    if (vary !== undefined) headers.set('Vary', vary);
    headers.set('Content-Encoding', coding);
    headers.set('Content-Length', String(encoded.length));
    weakenTag(headers);
    // Assigning c.res over a response makes hono wrap the new one again (new Response(res.body,
    // res)), which would read node-server's held bytes back as a stream; clearing it first keeps
    // them held, so node-server writes them with one res.end. The headers are already merged.
    c.res = undefined;
    c.res = new Response(encoded, { status: res.status, headers });
  }
  compressMiddleware.cache = cache;
  return compressMiddleware;
}

function weakenTag(headers) {
  const tag = headers.get('ETag');
  if (tag && !tag.startsWith('W/')) headers.set('ETag', `W/${tag}`);
}

module.exports = { compress };
