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
const { encodeBody } = require('../compression/whole-body');
const { honoVary, varyWith } = require('../http/vary');
const { isHtmlOrXhtml } = require('../http/html');
const { heldBody, peekHeldBody } = require('./held-body');
const { tagOf } = require('./tags');
const { DictionaryTransport } = require('../compression/dictionary-transport');
const dictionaryHeaders = require('../compression/dictionary-headers');
const { whenHeadSent } = require('../http/sent-head');
const { HONO_COMPRESS_OPTIONS } = require('../compression/option-names');
const { peerOptions } = require('../options');
const { pipelinePiece } = require('./pipeline');

const CODINGS = ['gzip', 'deflate'];
// The order in which the dcz choice sees a cookie (the late-mark warning:
// lib/compression/dictionary-transport.js)
const LATE_MARK_ADVICE =
  'Set cookies in the route or in middleware mounted after compress({ dictionary: true }): one ' +
  'mounted before it sets them after compress has answered';
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

// hono/compress's Vary. c.header() on a finished response rebuilds it around its body as a
// stream, so a body node-server held whole would be read back from that stream, and under Bun
// its stream does not end within node-server's first reads: the answer went out chunked, without
// the Content-Length it had. A held body is rebuilt held: a new Response of the same body with a
// copy of the headers (never the old response's Headers themselves: node-server's Response keeps
// the Headers object it was given, which an app may share between responses). Any other response
// takes hono's own route, and so does a held body on a status that has none (hono's rebuild
// throws there, as with hono/compress, and hono answers 500).
function addVary(c) {
  const res = c.res;
  const vary = honoVary(res.headers.get('Vary'));
  if (vary === undefined) return;
  const held = NULL_BODY_STATUSES.has(res.status) ? undefined : peekHeldBody(res);
  if (held === undefined) {
    c.header('Vary', vary);
    return;
  }
  const headers = new Headers(res.headers);
  headers.set('Vary', vary);
  // not res.statusText: reading it turns the held response into a web stream (node-server
  // writes no statusText for a body it holds)
  c.res = undefined; // as below: assigning over a response would read the held body as a stream
  c.res = new Response(held, { status: res.status, headers });
}

// The request as Node's IncomingMessage shows it (node-server's, or one made from the Request:
// method, url, lower-case headers), for the dictionary's sharing check and its opt-in.
function incomingOf(c) {
  const incoming = c.env?.incoming;
  if (incoming && typeof incoming.headers === 'object') return incoming;
  const url = new URL(c.req.url);
  return { method: c.req.method, url: url.pathname + url.search, headers: Object.fromEntries(c.req.raw.headers) };
}

function compress(options) {
  peerOptions(options, HONO_COMPRESS_OPTIONS, 'hono compress(options)');
  const threshold = options?.threshold ?? 1024;
  const candidates = options?.encoding ? [options.encoding] : CODINGS;
  const filter = options?.contentTypeFilter ?? honoCompressibleTypes();
  const typeAllowed =
    typeof filter === 'function' ? (type) => type && filter(type) : (type) => type && filter.test(type);
  const negotiate = createNegotiator(candidates, candidates, 'hono-compress');
  const cache = cacheFrom(options?.cache);
  const encoders = {};
  for (const coding of candidates) if (CODINGS.includes(coding)) encoders[coding] = createEncoder(coding, {});
  // Compression Dictionary Transport (RFC 9842, `dcz`), opt-in: lib/compression/dictionary-transport.js
  const dictionaries = DictionaryTransport.from(options?.dictionary, 'hono-compress');

  // the pipeline's last stage (pipeline.js): after critical CSS and etag, in any mount order
  const compressStage = pipelinePiece({ place: 'compression', run: compressResponse });
  async function compressMiddleware(c, next) {
    if (dictionaries !== null) {
      const url = c.req.url;
      const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
      if (dictionaries.owns(target)) {
        const answer = dictionaries.serve(c.req.method, target);
        return new Response(c.req.method === 'HEAD' ? null : answer.body, {
          status: answer.status,
          headers: answer.headers,
        });
      }
    }
    return compressStage(c, next);
  }

  // hono/compress's rules: whether it takes a response with this head
  function takes(method, res) {
    const length = res.headers.get('Content-Length');
    return !(
      res.status === 206 ||
      res.headers.has('Content-Encoding') ||
      res.headers.has('Transfer-Encoding') ||
      method === 'HEAD' ||
      (length && Number(length) < threshold) ||
      !typeAllowed(res.headers.get('Content-Type')) ||
      NO_TRANSFORM_REGEXP.test(res.headers.get('Cache-Control') || '')
    );
  }

  // A 304 the etag stage made: the Vary and the weak ETag of the 200 it stands for
  function notModified(c, replaced) {
    if (!takes(c.req.method, replaced)) return;
    const headers = c.res.headers;
    const vary = honoVary(headers.get('Vary'));
    if (vary !== undefined) headers.set('Vary', vary);
    if (dictionaries !== null) headers.set('Vary', varyWith(headers.get('Vary'), 'Available-Dictionary'));
    const coding = negotiate(c.req.header('Accept-Encoding'));
    if (coding !== undefined && encoders[coding] !== undefined) weakenTag(headers);
  }

  async function compressResponse(c, pipeline) {
    const res = c.res;
    if (res.status === 304 && pipeline.notModified !== undefined) return notModified(c, pipeline.notModified);
    if (!takes(c.req.method, res)) return;
    let coding = negotiate(c.req.header('Accept-Encoding'));
    let encoder = encoders[coding];
    let held;
    if (dictionaries !== null) {
      // read before anything touches the response: c.header() would turn the held body into a stream
      held = heldBody(res);
      const dictionary = dictionaries.choose(c.req.header('Accept-Encoding'), c.req.header('Available-Dictionary'), {
        req: incomingOf(c),
        status: res.status,
        getHeader: (name) =>
          (name === 'set-cookie' ? res.headers.getSetCookie?.()[0] : undefined) ?? res.headers.get(name) ?? undefined,
      });
      const sent = announce(c, held);
      if (dictionary !== null && held !== undefined && held !== null) {
        coding = 'dcz';
        encoder = dictionary.encoder;
        sent.answeredWith = dictionary;
      }
    }
    // read before anything touches the response: c.header() would turn the held body into a stream
    if (dictionaries === null) held = coding !== undefined && encoder !== undefined ? heldBody(res) : undefined;
    else if (coding === undefined || encoder === undefined) held = undefined;
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

    const tag = tagOf.get(res) ?? res.headers.get('ETag');
    let encoded;
    try {
      const body = typeof held === 'string' ? held : Buffer.from(held.buffer, held.byteOffset, held.byteLength);
      encoded = encodeBody(cache, encoder, body, tag);
      if (encoded instanceof Promise) encoded = await encoded;
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
    if (coding === 'dcz')
      dictionaries.record(typeof held === 'string' ? Buffer.byteLength(held) : held.byteLength, encoded.length);
  }

  // Vary on Available-Dictionary and the Link on HTML. Once node-server has written the final
  // response (c.res then: what outer middlewares left), on the head it went out with, a whole HTML
  // body is offered to the learner and a dcz answer checked for a late mark. Returns that record,
  // whose `answeredWith` the dcz choice sets. Without node-server's outgoing response there is no
  // such moment: nothing is learned (so no learned dictionary answers dcz either).
  function announce(c, held) {
    const sent = { body: undefined, answeredWith: null };
    const headers = c.res.headers;
    headers.set('Vary', varyWith(headers.get('Vary') ?? undefined, 'Available-Dictionary'));
    const outgoing = c.env?.outgoing;
    const incoming = c.env?.incoming;
    if (outgoing && incoming && typeof outgoing.once === 'function')
      whenHeadSent(outgoing, () =>
        dictionaries.ended(incoming, outgoing, sent.body, sent.answeredWith, LATE_MARK_ADVICE),
      );
    if (!isHtmlOrXhtml(headers.get('Content-Type'))) return sent;
    const link = dictionaries.link();
    if (link !== undefined) headers.set('Link', dictionaryHeaders.linkWith(headers.get('Link') ?? undefined, link));
    if (held !== undefined && held !== null) sent.body = held;
    return sent;
  }
  compressMiddleware.cache = cache;
  compressMiddleware.dictionary = dictionaries;
  return compressMiddleware;
}

function weakenTag(headers) {
  const tag = headers.get('ETag');
  if (tag && !tag.startsWith('W/')) headers.set('ETag', `W/${tag}`);
}

module.exports = { compress };
