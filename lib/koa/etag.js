'use strict';
// Koa middleware: drop-ins for koa-etag 5 and koa-conditional-get 3. Works on Koa 2 and 3.
const { Stream } = require('stream');
const fsp = require('fs/promises');
const { etag: entityTag, isStats } = require('../etag');
const { invalidType } = require('../validate');
const { peerOptions } = require('../options');
const { aroundNext } = require('./pipeline');

const KOA_ETAG_OPTIONS = ['weak']; // koa-etag passes its options to the etag package, which reads weak

// Same entity choice as koa-etag: nothing for empty bodies, non-2xx or an ETag already set;
// a file stream gets its stats (a promise); strings and Buffers as they are; anything else as JSON.
function responseEntity(ctx) {
  const body = ctx.body;
  if (!body || ctx.response.get('etag')) return undefined;
  if (Math.trunc(ctx.status / 100) !== 2) return undefined;
  if (body instanceof Stream) {
    if (!('path' in body) || typeof body.path !== 'string') return undefined;
    return fsp.stat(body.path);
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}

/**
 * ETag middleware, a drop-in for koa-etag: strong CRC-32 tags for bodies by default (as the
 * etag package makes them for koa-etag), weak stat-based tags for file streams; `{ weak }`
 * forces either form.
 */
function etag(options) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw invalidType('options', 'an object', options);
  }
  peerOptions(options, KOA_ETAG_OPTIONS, 'koa etag(options)');
  const weak = options && typeof options.weak === 'boolean' ? options.weak : undefined;
  function setTag(ctx, entity) {
    if (!entity) return;
    // The etag package's default: weak for stats, strong for bodies.
    ctx.response.etag = entityTag(entity, { weak: weak === undefined ? isStats(entity) : weak });
  }
  // the Koa pipeline's etag stage (pipeline.js): after critical CSS, before the cache's store
  const stage = {
    place: 'etag',
    run(ctx) {
      const entity = responseEntity(ctx);
      if (entity instanceof Promise) return entity.then((stats) => setTag(ctx, stats));
      setTag(ctx, entity);
      return undefined;
    },
  };
  return function etagMiddleware(ctx, next) {
    return aroundNext(ctx, next, stage);
  };
}

// conditional()'s 304 decision: a stage of the pipeline at the etag place, after the tag; a
// response the cache is storing keeps its body for the store stage, which then makes the 304
// decision the same way (response-cache.js).
const conditionalStage = {
  place: 'etag',
  last: true,
  run(ctx, pipeline) {
    if (pipeline.stages.some((stage) => stage.decidesNotModified === true)) return;
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
  },
};

/** Conditional GET middleware, a drop-in for koa-conditional-get: 304 when the client is fresh,
 *  decided on the ETag etag() sets wherever each is mounted. */
function conditional() {
  return function conditionalMiddleware(ctx, next) {
    return aroundNext(ctx, next, conditionalStage);
  };
}

module.exports = { etag, conditional };
