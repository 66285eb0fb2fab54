'use strict';
// The value the whole-body stages share: the response's status and headers, read and set on a
// response-like head (node:http's `res` under the held response, Koa's ctx.res, a small face
// over Fastify's reply or Hono's Headers in their adapters: statusCode, getHeader(name) giving
// undefined when absent, setHeader(name, value)), the request's method, and the body with its
// CRC-32, computed when first read and kept until the body is replaced. The critical-CSS stage
// runs on it in every adapter (lib/critical-css/stage.js).
// read through the module object, not destructured: a test counts the CRC-32s by wrapping it
const etagModule = require('../etag');

// CRC-32s of the stable bodies stages hand over again and again (HeldValue#replace)
const stableCrcs = new WeakMap();

class HeldValue {
  constructor(res, body, method) {
    this.res = res;
    this.method = method;
    this.bodyBytes = body;
    this.crcValue = undefined;
    this.stable = false;
    this.changed = false; // a stage replaced the body
    this.tagged = false; // the ETag names the body as it now is
    this.notModified = false; // the etag stage decided a 304
  }

  get body() {
    return this.bodyBytes;
  }

  get crc() {
    if (this.crcValue === undefined) {
      this.crcValue = etagModule.crc32(this.bodyBytes);
      if (this.stable) stableCrcs.set(this.bodyBytes, this.crcValue);
    }
    return this.crcValue;
  }

  /** A new body. `stable`: no one ever writes into it (an engine's output, a memo's copy), so
   *  its CRC-32, once computed, is kept by identity for the next response that sends it. */
  replace(body, stable = false) {
    if (body === this.bodyBytes) return;
    this.bodyBytes = body;
    this.stable = stable;
    this.crcValue = stable ? stableCrcs.get(body) : undefined;
    this.changed = true;
    this.tagged = false;
  }

  /** Sets the ETag of the body as it now is (our W/"<length>-<crc>" form) and returns it. */
  retag(weak) {
    const tag = etagModule.crcTag(this.bodyBytes.length, this.crc, weak);
    this.res.setHeader('ETag', tag);
    this.tagged = true;
    return tag;
  }
}

module.exports = { HeldValue };
