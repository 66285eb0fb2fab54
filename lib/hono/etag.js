'use strict';
// etag(options): a drop-in for hono/etag (weak, retainedHeaders) whose tag is the CRC-32 of the
// body (lib/etag.js) instead of a SHA-1 through WebCrypto. A body serveStatic sent from memory is
// not read at all (its tag comes with it); a string or bytes node-server's Response still holds
// are hashed as they are (held-body.js: why that reads an internal, and its guard); other bodies
// are read once from a clone.
// generateDigest is accepted and ignored: the tag is always ours. It runs as the held pipeline's
// etag stage (pipeline.js): on the page criticalCss inlined, before compress, in any mount order.
const { etag: entityTag } = require('../etag');
const { honoEtagMatches } = require('../http/conditional');
const { tagOf } = require('./tags');
const { heldBody, peekHeldBody } = require('./held-body');
const { peerOptions } = require('../options');
const { pipelinePiece } = require('./pipeline');

const RETAINED_304_HEADERS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary'];
const STRONG = { weak: false };
const HONO_ETAG_OPTIONS = ['retainedHeaders', 'weak', 'generateDigest']; // hono/etag's

function etag(options) {
  peerOptions(options, HONO_ETAG_OPTIONS, 'hono etag(options)');
  const retained = new Set((options?.retainedHeaders ?? RETAINED_304_HEADERS).map((h) => h.toLowerCase()));
  const weak = options?.weak ?? false;
  // the pipeline's etag stage (pipeline.js): after critical CSS, before compression
  return pipelinePiece({ place: 'etag', run: etagStage });

  async function etagStage(c, pipeline) {
    const ifNoneMatch = c.req.header('If-None-Match') ?? null;
    const method = c.req.method;
    if (!(method === 'GET' || method === 'HEAD' || method === 'QUERY') || !c.res.ok) return;
    const res = c.res;
    let tag = res.headers.get('ETag');
    if (!tag) {
      let hash = tagOf.get(res);
      if (hash === undefined) {
        const held = heldBody(res);
        if (held === null || (held === undefined && !res.body)) return;
        const bytes = held !== undefined ? held : Buffer.from(await res.clone().arrayBuffer());
        // hono/etag digests chunks: an empty body has none, and no tag
        if (bytes.length === 0) return;
        hash = entityTag(
          typeof bytes === 'string' || Buffer.isBuffer(bytes)
            ? bytes
            : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          STRONG,
        );
      } else if (hash.startsWith('"0-') || hash.startsWith('W/"0-')) {
        return;
      }
      // the quoted part of our tag, under hono's own prefix
      hash = hash.slice(hash.indexOf('"') + 1, -1);
      tag = weak ? `W/"${hash}"` : `"${hash}"`;
    }
    if (honoEtagMatches(ifNoneMatch, tag)) {
      // a body node-server still holds is let go as it is (res.body would make it a stream)
      if (peekHeldBody(res) === undefined) await res.body?.cancel();
      c.res = new Response(null, { status: 304, statusText: 'Not Modified', headers: { ETag: tag } });
      pipeline.notModified = res;
      for (const key of Array.from(c.res.headers.keys()))
        if (!retained.has(key.toLowerCase())) c.res.headers.delete(key);
    } else {
      res.headers.set('ETag', tag);
    }
  }
}

module.exports = { etag, RETAINED_304_HEADERS };
