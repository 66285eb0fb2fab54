'use strict';
// For the Koa, Fastify and Hono adapters, which see an answer whole once the route is done:
// whether it is an HTML body to inline (the same rules as the node:http middleware), and the
// inlining itself with the ETag of the bytes that will be sent.
const { etag } = require('../etag');
const { isHtml } = require('../http/html');

/**
 * The head wantsInlining and inlineWhole read, from a framework's response: `header(name)` gives
 * the value of a lower-case header name (Koa's response.get, Fastify's reply.getHeader, Hono's
 * headers.get all do), so the adapters read the same five headers the same way.
 */
function headFrom(method, status, header) {
  return {
    method,
    status,
    type: header('content-type'),
    coding: header('content-encoding'),
    tag: header('etag'),
    lastModified: header('last-modified'),
  };
}

/** head: { method, status, type, coding, tag, lastModified } of the answer as it stands. */
function wantsInlining(head) {
  if (head.method === 'HEAD') return false;
  const status = head.status;
  if (status < 200 || status === 204 || status === 206 || status === 304) return false;
  if (!isHtml(head.type)) return false;
  return !head.coding || String(head.coding).trim().toLowerCase() === 'identity';
}

/**
 * The inlined body (a Buffer) and its ETag (undefined when `head.tag` was none), or null when
 * the page goes out as it was. Resolves; never rejects.
 */
async function inlineWhole(criticalCss, body, head) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.isBuffer(body) ? body : null;
  if (bytes === null || bytes.length === 0) return null;
  const stored = Boolean(head.lastModified) || isStrongTag(head.tag);
  let out;
  try {
    out = await criticalCss.processBody(bytes, stored);
  } catch {
    return null;
  }
  if (out === bytes || out.equals(bytes)) return null;
  const tag = head.tag ? etag(out, { weak: !isStrongTag(head.tag) }) : undefined;
  return { body: out, tag };
}

/** The middleware's face in every adapter: its engine, the engine's stats() and close(). */
function exposeEngine(middleware, engine) {
  middleware.criticalCss = engine;
  middleware.stats = () => engine.stats();
  middleware.close = () => engine.close();
  return middleware;
}

function isStrongTag(tag) {
  return typeof tag === 'string' && tag.length > 0 && !tag.startsWith('W/');
}

module.exports = { headFrom, wantsInlining, inlineWhole, exposeEngine, isStrongTag };
