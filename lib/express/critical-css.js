'use strict';
// ssr-native/critical-css: the engine's inlineCriticalCss, CriticalCss and ANGULAR_DEFAULTS
// (lib/critical-css), and criticalCss(options), the connect-style middleware (node:http, Express 4/5) that inlines
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
const { stageOf, exposeEngine } = require('../critical-css/stage');
const { CriticalCss } = require('../critical-css/critical-css');
const { inlineCriticalCss, ANGULAR_DEFAULTS } = require('../critical-css');

function createMiddleware(criticalCss) {
  function criticalCssMiddleware(req, res, next) {
    hold(criticalCss, req, res);
    next();
  }
  return exposeEngine(criticalCssMiddleware, criticalCss);
}

// The critical-css stage of the held response (lib/http/held-response.js): an HTML page held
// whole gets its critical CSS inlined; the etag stage after it retags the new bytes and makes the
// one 304 decision.
function hold(criticalCss, req, res) {
  const held = HeldResponse.of(req, res);
  held.use(stageOf(criticalCss));
  useEtagStage(held);
}

/** The Express / node:http middleware; `options` as for inlineCriticalCss (or a CriticalCss). */
function criticalCss(options) {
  return createMiddleware(CriticalCss.of(options));
}

module.exports = { inlineCriticalCss, criticalCss, CriticalCss, ANGULAR_DEFAULTS };
