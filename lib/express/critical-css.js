'use strict';
// criticalCss(options): the connect-style middleware (node:http, Express 4/5) that inlines
// critical CSS into every text/html answer the routes after it send, whatever way they send it:
// res.send / res.end(body) (Express, ssr-native's writeResponse, serveStatic, a response cache
// replaying), or flushHeaders() then res.write()s then res.end() (Angular's
// writeResponseToNodeResponse). It holds the head and the body of an HTML answer, runs the page
// through the engine when the body ends, and sends the result in one res.end() with its
// Content-Length, so a compression middleware mounted in front of it sees one whole body.
//
// Left exactly as they are: answers that are not text/html, carry a Content-Encoding, are
// 1xx/204/206/304, or grow past maxBuffer (what was held goes out, then the rest streams
// through). A page whose bytes changed gets an ETag of the bytes sent (when it had one: same
// strength, our CRC-32), and a 304 when the request's If-None-Match names it.
// HEAD: a route that writes the body anyway (writeResponse, serveStatic) is processed like GET;
// one that sends no body (Express's res.send) gets the ETag and Content-Length that a GET of the
// same page was given lately (CriticalCss#headFor: remembered by the route's own tag), and the
// head as the route made it otherwise.
const { HeldResponse, useEtagStage } = require('../http/held-response');
const { isStrongTag, exposeEngine, headFrom, wantsInlining } = require('../critical-css/whole-body');

function createMiddleware(criticalCss) {
  function criticalCssMiddleware(req, res, next) {
    hold(criticalCss, req, res);
    next();
  }
  return exposeEngine(criticalCssMiddleware, criticalCss);
}

const TOO_LARGE = 'tooLarge';

/** Whether the answer about to start on `res` is one to inline (its head as set now): true,
 *  false, or TOO_LARGE for an HTML page whose Content-Length is over maxBuffer. */
function isHtmlToInline(res, maxBuffer) {
  // the Koa, Fastify and Hono adapters' rule (whole-body.js); a HEAD is the stage's to answer
  // (headOnly), so the method is not read here
  if (!wantsInlining(headFrom(undefined, res.statusCode, (name) => res.getHeader(name)))) return false;
  const length = res.getHeader('Content-Length');
  return length === undefined || !(Number(length) > maxBuffer) ? true : TOO_LARGE;
}

// The critical-css stage of the held response (lib/http/held-response.js): an HTML page held
// whole gets its critical CSS inlined; the etag stage after it retags the new bytes and makes the
// one 304 decision.
function hold(criticalCss, req, res) {
  const held = HeldResponse.of(req, res);
  held.use(stageOf(criticalCss));
  useEtagStage(held);
}

// One stage object per CriticalCss (its methods read only their arguments).
const stages = new WeakMap();

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
      run(value, held) {
        return inline(criticalCss, value, held);
      },
    };
    stages.set(criticalCss, stage);
  }
  return stage;
}

function inline(criticalCss, value, held) {
  const body = value.body;
  if (body.length === 0) {
    if (held.req.method === 'HEAD') headOnly(criticalCss, value);
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

module.exports = { createMiddleware, isHtmlToInline, isStrongTag };
