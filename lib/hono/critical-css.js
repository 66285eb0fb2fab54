'use strict';
// criticalCss(options) for Hono: after the handlers below it, a text/html Response without a
// Content-Encoding is read (up to maxBuffer, from its Content-Length) and goes through the
// critical-CSS stage (the same as Express's, lib/critical-css/stage.js); an inlined page replaces
// it, a Response of the inlined bytes with the same status and headers (the Content-Length
// dropped, a new ETag when it had one). It runs as the held pipeline's first stage (pipeline.js):
// before etag() and compress(), whatever their mount order.
const { CriticalCss } = require('../critical-css/critical-css');
const { wantsInlining, inlineWhole, passedThrough, exposeEngine } = require('../critical-css/stage');
const { heldBody } = require('./held-body');
const { pipelinePiece } = require('./pipeline');

/** Web Headers as the stage reads and sets a head (held-value.js): undefined when absent. The
 *  response's own headers are read until the stage sets one; only then are they copied (a page
 *  the stage leaves as it was costs no copy). */
class HeadersHead {
  constructor(status, headers) {
    this.statusCode = status;
    this.source = headers;
    this.copy = null;
  }

  getHeader(name) {
    const value = (this.copy ?? this.source).get(name);
    return value === null ? undefined : value;
  }

  setHeader(name, value) {
    if (this.copy === null) this.copy = new Headers(this.source);
    this.copy.set(name, String(value));
  }
}

function criticalCss(options) {
  const engine = CriticalCss.of(options);
  async function criticalCssStage(c) {
    const res = c.res;
    if (!res) return;
    // Read without touching res.body or res.statusText: on @hono/node-server either turns the
    // response it holds as given into a web stream, which is then read back through a clone
    // (held-body.js); headers and status are read from what it holds.
    const headers = res.headers;
    // Hono answers a HEAD with its GET route's response, whose body node-server drops: inlined as
    // for the GET, the etag stage tags the bytes a GET sends
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (!wantsInlining(method, res.status, headers.get('content-type'), headers.get('content-encoding'))) {
      passedThrough(engine);
      return;
    }
    const length = headers.get('content-length');
    if (length !== null && Number(length) > engine.maxBuffer) {
      engine.counts.tooLarge++;
      return;
    }
    let body = heldBody(res);
    if (body === null) return; // no body
    const streamed = body === undefined;
    if (streamed) {
      if (!res.body) return;
      body = Buffer.from(await res.clone().arrayBuffer());
    } else if (typeof body !== 'string') body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const head = new HeadersHead(res.status, headers);
    const inlined = await inlineWhole(engine, head, method, body);
    if (inlined === null) return;
    const headersOut = head.copy ?? new Headers(headers);
    headersOut.delete('content-length');
    const init = { status: res.status, headers: headersOut };
    if (streamed) {
      // a response read through its clone: its own stream is let go, its statusText kept
      // (node-server writes none for a body it holds)
      init.statusText = res.statusText;
      await res.body.cancel().catch(() => {});
    }
    c.res = undefined; // hono merges headers set on c into a new res; start from ours
    c.res = new Response(inlined, init);
  }
  return exposeEngine(pipelinePiece({ place: 'critical-css', run: criticalCssStage }), engine);
}

module.exports = { criticalCss };
