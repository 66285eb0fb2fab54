'use strict';
// For the Koa, Fastify and Hono adapters, which see an answer whole once the route is done:
// whether it is an HTML body to inline (the same rules as the node:http middleware), and the
// inlining itself with the ETag of the bytes that will be sent.
const { etag } = require('../etag');
const { isHtml } = require('../http/html');

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

function isStrongTag(tag) {
  return typeof tag === 'string' && tag.length > 0 && !tag.startsWith('W/');
}

module.exports = { wantsInlining, inlineWhole, isStrongTag };
