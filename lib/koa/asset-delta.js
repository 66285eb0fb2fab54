'use strict';
// Koa's half of `dictionary` (serve() and send()): a hashed file offered as a dictionary for its
// later versions, and a dcz delta against a file offered before, as the engine decides
// (lib/compression/asset-delta.js), written in koa-send's shape. Conditional requests on a delta
// are koa-conditional-get's, on the delta's own ETag; HEAD is Koa's (no body, the delta's length).
const { assetDelta, encodeDeltaAsync } = require('../compression/asset-delta');
const { varyWith } = require('../http/vary');
const { respond } = require('../files/respond');

/**
 * Sets the offer's headers on a file `sender` (a FileSender) is about to answer, and answers a
 * delta. Returns undefined (answer the file as usual) or a promise settled once the delta (or,
 * should encoding fail, the file) is the response's body.
 */
function sendAsset(sender, ctx, record) {
  const decision = assetDelta(sender.assets, ctx.originalUrl, record, ctx.headers);
  if (decision === null) return undefined;
  const response = ctx.response;
  response.set('Vary', varyWith(response.get('Vary'), decision.vary));
  response.set('Use-As-Dictionary', decision.useAsDictionary);
  return decision.delta === null ? undefined : sendDelta(sender, ctx, record, decision.delta);
}

async function sendDelta(sender, ctx, record, delta) {
  const encoded = await encodeDeltaAsync(delta, record.body);
  const response = ctx.response;
  if (encoded === null) {
    // the file goes out as it is rather than not at all
    response.remove('Use-As-Dictionary');
    return sender.sendRecord(ctx, record, true);
  }
  // koa-send's header step for the delta's bytes and validator (files/respond.js), no ranges
  const { lastModified } = record;
  const file = { body: encoded, size: encoded.length, etag: delta.etag, lastModified, encoding: delta.contentEncoding };
  const how = sender.how;
  const wholly = { ...how, options: { ...how.options, acceptRanges: false } };
  const answered = respond('koa-send', ctx.req, ctx.res, record, wholly, file);
  for (const name in answered.headers) response.set(name, answered.headers[name]);
  if (!response.type) response.type = record.type;
  response.body = answered.body;
  // counted once sent: a conditional() mounted in front may still turn it into a 304
  if (ctx.method === 'GET') {
    const res = ctx.res;
    res.once('finish', () => {
      if (res.statusCode === 200) sender.assets.record(record.body.length, encoded.length);
    });
  }
  return undefined;
}

module.exports = { sendAsset };
