'use strict';
// fastifyEtag: a drop-in for @fastify/etag 6.2 on Fastify 4 and 5. The same onSend hook (an ETag
// for string and Buffer payloads that have none, a 304 when If-None-Match names it) with the tag a
// CRC-32 of the bytes (lib/etag.js: one native call, hardware CRC) instead of SHA-1.
//   weak          W/"..." tags (default false)
//   replyWith304  answer 304 with an empty payload on a match (default true)
//   algorithm     accepted for compatibility; ignored: the tag is always our CRC-32
//   hashFn        accepted; ignored too (a custom hash would give up the native one)
const { createHash } = require('crypto');
const { etag: entityTag } = require('../etag');
const { invalidType } = require('../validate');
const { fastifyEtagMatches } = require('../http/conditional');
const { asPlugin } = require('./plugin-meta');
const { peerOptions } = require('../options');
const { joinPipeline } = require('./pipeline');

const STRONG = { weak: false };
const WEAK = { weak: true };
// @fastify/etag's options, and Fastify's register options
const FASTIFY_ETAG_OPTIONS = ['weak', 'replyWith304', 'algorithm', 'hashFn', 'prefix', 'logLevel', 'logSerializers'];

async function fastifyEtag(app, options) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw invalidType('options', 'an object', options);
  }
  peerOptions(options, FASTIFY_ETAG_OPTIONS, 'fastifyEtag options');
  const { weak = false, replyWith304 = true, algorithm, hashFn } = options || {};
  // @fastify/etag's own check: an algorithm this runtime's crypto lacks is an error
  if (typeof hashFn !== 'function' && algorithm !== undefined && algorithm !== 'fnv1a') {
    try {
      createHash(algorithm);
    } catch {
      throw new TypeError(`Algorithm ${algorithm} not supported.`);
    }
  }
  const tagOptions = weak ? WEAK : STRONG;

  // the pipeline's etag stage (pipeline.js): on the page fastifyCriticalCss inlined, in any order
  joinPipeline(app, { place: 'etag', run: etagStage });

  function etagStage(sending) {
    const reply = sending.reply;
    let etag = reply.getHeader('etag');
    if (!etag) {
      // only strings and Buffers are tagged (streams, undefined... pass untouched)
      const payload = sending.payload;
      if (typeof payload !== 'string' && !(payload instanceof Buffer)) return;
      etag = entityTag(payload, tagOptions);
      reply.header('etag', etag);
    }
    if (replyWith304 && fastifyEtagMatches(sending.request.headers['if-none-match'], etag)) {
      reply.code(304);
      sending.payload = '';
    }
  }
}

module.exports = asPlugin(fastifyEtag, '@fastify/etag', 'fastifyEtag');
