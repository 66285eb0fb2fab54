'use strict';
// Hono's half of `dictionary` (serveStatic): a hashed file offered as a dictionary for its later
// versions, and a dcz delta against a file offered before, as the engine decides
// (lib/compression/asset-delta.js), answered in node-server's shape: Content-Length, a body of
// bytes (none for HEAD), its tag for etag() (so a conditional request on the delta is answered on
// the delta's own validator), no ranges.
const { assetDelta, encodeDeltaAsync } = require('../compression/asset-delta');
const { tagOf } = require('./tags');

/**
 * Sets the offer's headers on a file about to be answered from memory, and answers a delta.
 * Returns undefined (answer the file as usual), or a promise of the Response, or of undefined
 * should encoding fail (then the file, without the offer).
 */
function sendAsset(c, record, method, assets) {
  const headers = {
    range: c.req.header('range'),
    'accept-encoding': c.req.header('accept-encoding'),
    'available-dictionary': c.req.header('available-dictionary'),
  };
  const decision = assetDelta(assets, c.req.path, record, headers);
  if (decision === null) return undefined;
  c.header('Vary', decision.vary.join(', '), { append: true });
  c.header('Use-As-Dictionary', decision.useAsDictionary);
  return decision.delta === null ? undefined : sendDelta(c, record, method, decision.delta, assets);
}

async function sendDelta(c, record, method, delta, assets) {
  const encoded = await encodeDeltaAsync(delta, record.body);
  if (encoded === null) {
    c.header('Use-As-Dictionary', undefined);
    return undefined;
  }
  c.header('Content-Encoding', delta.contentEncoding);
  c.header('Content-Length', String(encoded.length));
  if (method === 'HEAD') {
    c.status(200);
    return c.body(null);
  }
  const result = c.body(encoded, 200);
  tagOf.set(result, delta.etag);
  // counted once sent (etag() may still turn it into a 304) where node-server's response is known
  const outgoing = c.env?.outgoing;
  if (outgoing !== undefined && typeof outgoing.once === 'function') {
    outgoing.once('finish', () => {
      if (outgoing.statusCode === 200) assets.record(record.body.length, encoded.length);
    });
  } else {
    assets.record(record.body.length, encoded.length);
  }
  return result;
}

module.exports = { sendAsset };
