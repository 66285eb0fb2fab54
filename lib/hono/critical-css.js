'use strict';
// criticalCss(options) for Hono: after the handlers below it, a text/html Response without a
// Content-Encoding is read (up to maxBuffer, from its Content-Length), its critical CSS inlined,
// and replaced by a Response of the inlined bytes with the same status and headers (the
// Content-Length dropped, a new ETag when it had one). Mount it after compress() and etag().
const { CriticalCss } = require('../critical-css/critical-css');
const { headFrom, wantsInlining, inlineWhole, exposeEngine } = require('../critical-css/whole-body');
const { heldBody } = require('./held-body');

function criticalCss(options) {
  const engine = CriticalCss.of(options);
  async function criticalCssMiddleware(c, next) {
    await next();
    const res = c.res;
    if (!res || !res.body) return;
    const headers = res.headers;
    const head = headFrom(c.req.method, res.status, (name) => headers.get(name));
    if (!wantsInlining(head)) return;
    const length = headers.get('content-length');
    if (length !== null && Number(length) > engine.maxBuffer) return;
    let body = heldBody(res);
    if (body === null) return;
    if (body === undefined) body = Buffer.from(await res.clone().arrayBuffer());
    else if (typeof body !== 'string') body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if ((typeof body === 'string' ? body.length : body.length) > engine.maxBuffer) return;
    const done = await inlineWhole(engine, body, head);
    if (done === null) return;
    const headersOut = new Headers(headers);
    headersOut.delete('content-length');
    if (done.tag !== undefined) headersOut.set('etag', done.tag);
    await res.body?.cancel().catch(() => {});
    c.res = undefined; // hono merges headers set on c into a new res; start from ours
    c.res = new Response(done.body, { status: res.status, statusText: res.statusText, headers: headersOut });
  }
  return exposeEngine(criticalCssMiddleware, engine);
}

module.exports = { criticalCss };
