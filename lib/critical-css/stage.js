'use strict';
// The critical-CSS stage, one for every adapter: which answers it takes (an HTML page, not
// encoded, not a 1xx/204/206/304), and what it does to one held whole (a HeldValue,
// lib/http/held-value.js): the page with its critical CSS inlined, its Content-Length and its
// ETag (same strength, our CRC-32 of the bytes sent) made right. Express runs it as the held
// response's 'critical-css' stage (lib/express/critical-css.js); Koa, Fastify and Hono run the
// same stage from their own hooks, on a HeldValue over their response, once the route is done.
const { isHtml } = require('../http/html');
const { HeldValue } = require('../http/held-value');

/**
 * Whether an answer is a page to inline, from its Content-Type and Content-Encoding as the
 * framework keeps them (absent: undefined, null or ''). The method is undefined where a HEAD is
 * the stage's to answer (node:http: headOnly below).
 */
function wantsInlining(method, status, type, coding) {
  if (method === 'HEAD') return false;
  if (status < 200 || status === 204 || status === 206 || status === 304) return false;
  if (!isHtml(type)) return false;
  return !coding || String(coding).trim().toLowerCase() === 'identity';
}

const TOO_LARGE = 'tooLarge';

/** Whether the answer about to start on node:http's `res` is one to inline (its head as set
 *  now): true, false, or TOO_LARGE for an HTML page whose Content-Length is over maxBuffer. */
function isHtmlToInline(res, maxBuffer) {
  if (!wantsInlining(undefined, res.statusCode, res.getHeader('Content-Type'), res.getHeader('Content-Encoding'))) {
    return false;
  }
  const length = res.getHeader('Content-Length');
  return length === undefined || !(Number(length) > maxBuffer) ? true : TOO_LARGE;
}

// One stage object per CriticalCss (its methods read only their arguments).
const stages = new WeakMap();

/** The stage of `criticalCss`: { place, maxBuffer, wantsWhole, released, run } (held-response.js). */
function stageOf(criticalCss) {
  let stage = stages.get(criticalCss);
  if (stage === undefined) {
    stage = {
      place: 'critical-css',
      maxBuffer: criticalCss.maxBuffer,
      wantsWhole(res) {
        const verdict = isHtmlToInline(res, criticalCss.maxBuffer);
        if (verdict === true) return true;
        criticalCss.counts[verdict === TOO_LARGE ? 'tooLarge' : 'passedThrough']++;
        return false;
      },
      released() {
        criticalCss.counts.tooLarge++;
      },
      run(value) {
        return inline(criticalCss, value);
      },
    };
    stages.set(criticalCss, stage);
  }
  return stage;
}

function inline(criticalCss, value) {
  const body = value.body;
  if (body.length === 0) {
    if (value.method === 'HEAD') headOnly(criticalCss, value);
    return undefined;
  }
  const res = value.res;
  const stored = res.getHeader('Last-Modified') !== undefined || isStrongTag(res.getHeader('ETag'));
  const inlined = criticalCss.processBody(body, stored, () => value.crc);
  if (inlined instanceof Promise) return inlined.then((out) => apply(criticalCss, value, body, out));
  apply(criticalCss, value, body, inlined);
  return undefined;
}

function apply(criticalCss, value, body, out) {
  if (out === body || out.equals(body)) return;
  const res = value.res;
  // stable: the engine's output and the memo's copy are never written into; a page inlined from
  // the memo is the same Buffer each time, and its tag needs no second pass over it
  value.replace(out, true);
  if (res.getHeader('Content-Length') !== undefined) res.setHeader('Content-Length', out.length);
  const tag = res.getHeader('ETag');
  if (tag !== undefined) {
    const retag = value.retag(!isStrongTag(tag));
    if (typeof tag === 'string') criticalCss.rememberHead(tag, retag, out.length);
  }
}

// A HEAD answered without a body: the head a GET of the same page got, when known; the etag
// stage then decides its 304 on that tag.
function headOnly(criticalCss, value) {
  const res = value.res;
  const tag = res.getHeader('ETag');
  const known = typeof tag === 'string' ? criticalCss.headFor(tag) : undefined;
  if (known === undefined) return;
  res.setHeader('ETag', known.tag);
  if (res.getHeader('Content-Length') !== undefined) res.setHeader('Content-Length', known.length);
  value.tagged = true;
}

/**
 * For the adapters that see an answer whole once the route is done (Koa, Fastify, Hono): the
 * stage run on `body` (a string or a Buffer), the headers read and set through `head`
 * ({ statusCode, getHeader, setHeader }, see held-value.js). Resolves to the inlined page (a
 * Buffer, its ETag and Content-Length already set on `head`), or null when the page goes out as
 * it was (nothing to inline, or the engine failed). Never rejects.
 */
async function inlineWhole(criticalCss, head, method, body) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes.length === 0) return null;
  const value = new HeldValue(head, bytes, method);
  try {
    await stageOf(criticalCss).run(value);
  } catch {
    return null; // the page as it was: the stage changes nothing before its engine answers
  }
  return value.changed ? value.body : null;
}

/** Counts an answer an adapter's hook let pass (not a page to inline), as the stage counts it. */
function passedThrough(criticalCss) {
  criticalCss.counts.passedThrough++;
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

module.exports = { wantsInlining, isHtmlToInline, stageOf, inlineWhole, passedThrough, exposeEngine, isStrongTag };
