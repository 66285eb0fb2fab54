'use strict';
// Fastify's half of `dictionary` (fastifyStatic): a hashed file offered as a dictionary for its
// later versions, and a dcz delta against a file offered before, as the engine decides
// (lib/compression/asset-delta.js), answered with @fastify/send's answer (lib/files/respond.js,
// 'fastify-send') for the delta's bytes and validator: its conditional rules, its HEAD, no ranges.
const { assetDelta, encodeDeltaAsync } = require('../compression/asset-delta');
const { varyWith } = require('../http/vary');
const { errorOf } = require('../files/answer');
const { respond } = require('../files/respond');

/**
 * Sets the offer's headers on a file about to be answered, and answers a delta. `how`: { assets,
 * steps (files/respond.js's `how`, with the send options' config), finish(a) (the adapter's
 * header step for an answer), plain() (answers the file itself) }. Returns undefined (answer
 * the file as usual) or a promise of the reply once the delta (or, should encoding fail, the
 * file) is sent.
 */
function sendAsset(request, reply, record, how) {
  const decision = assetDelta(how.assets, request.raw.url, record, request.headers);
  if (decision === null) return undefined;
  reply.header('vary', varyWith(reply.getHeader('vary'), decision.vary));
  reply.header('use-as-dictionary', decision.useAsDictionary);
  return decision.delta === null ? undefined : sendDelta(request, reply, record, decision.delta, how);
}

async function sendDelta(request, reply, record, delta, how) {
  const encoded = await encodeDeltaAsync(delta, record.body);
  if (encoded === null) {
    // the file goes out as it is rather than not at all
    reply.removeHeader('use-as-dictionary');
    return how.plain();
  }
  const { lastModified, type } = record;
  const file = { body: encoded, size: encoded.length, etag: delta.etag, lastModified, type };
  const a = respond('fastify-send', request, undefined, record, how.steps, file);
  if (a.status === 412 || a.status === 416) return reply.send(errorOf(a));
  how.finish(a);
  if (a.status === 304) return reply.send();
  reply.header('content-encoding', delta.contentEncoding);
  if (request.raw.method === 'GET') how.assets.record(record.body.length, encoded.length);
  // HEAD gets the bytes too, as for the file: Fastify's HEAD route counts the announced length
  return reply.send(a.body);
}

module.exports = { sendAsset };
