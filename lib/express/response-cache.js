'use strict';
// responseCache(options): the cache as connect-style middleware for node:http and Express 4/5,
// mounted before the routes it caches.
//
// A hit sets its status and headers on the response and hands the whole stored body to one
// res.end(body), with no explicit writeHead: anything mounted in front that wraps the response
// (compression 1.8, and ssr-native's compression, whose content cache then answers a body it has
// seen with its stored compressed bytes) sees a whole identity body, as from res.send. An
// explicit writeHead first would commit such a wrapper to streaming before the body is known. A miss goes to the routes with the response's
// writeHead/write/end wrapped: what the handler sends goes to the client as it is sent (res.send,
// res.end, streaming, flushHeaders then writes as Angular's writeResponseToNodeResponse does,
// ssr-native/angular's writeResponse) and is copied aside while the response may be stored.
const { CacheEngine } = require('../cache/engine');
const { isServerError } = require('../http/cache-rules');
const { attachControls } = require('../cache/controls');
const { storeWhole, storeWhenSent } = require('../cache/store-step');
const { HeldResponse, COPY } = require('../http/held-response');
const { StagesAfterStore } = require('../http/stages-after-store');

// Express honours X-Forwarded-Host / -Proto (req.hostname, req.protocol) when `trust proxy`
// covers the peer: the same test here. Plain node:http has no such setting: nothing is trusted.
function trustsForwarding(view) {
  const app = view.req.app;
  if (app === undefined || app === null || typeof app.get !== 'function') return false;
  const trust = app.get('trust proxy fn');
  return typeof trust === 'function' && view.socket !== undefined && trust(view.socket.remoteAddress, 0) === true;
}

function responseCache(options) {
  const engine = new CacheEngine(options, { trustsForwarding });
  const later = new StagesAfterStore();

  function responseCacheMiddleware(req, res, next) {
    const view = {
      method: req.method,
      url: req.originalUrl || req.url,
      headers: req.headers,
      socket: req.socket,
      req,
      later, // the stages a hit still goes through (http/stages-after-store.js)
    };
    decide(engine, view, req, res, next);
  }
  return attachControls(responseCacheMiddleware, engine);
}

function decide(engine, view, req, res, next) {
  const d = engine.begin(view);
  switch (d.action) {
    case 'hit':
      serveEntry(engine, view, res, d.entry);
      return;
    case 'pass':
      setCacheStatus(res, engine.statusOf(d));
      if (d.reason === 'method') res.once('finish', () => engine.invalidate(view, res.statusCode));
      next();
      return;
    case 'wait': {
      const onClose = () => cancel();
      const cancel = engine.wait(d.key, (timedOut) => {
        res.off('close', onClose);
        if (res.destroyed || res.writableEnded) return;
        if (timedOut) capture(engine, engine.fillWithoutLock(view, d), view, res, next);
        else decide(engine, view, req, res, next);
      });
      res.once('close', onClose);
      return;
    }
    default:
      if (engine.asksShared(d.fill)) {
        const fill = d.fill;
        // Every step after the await is guarded: a throw here would be an unhandled rejection,
        // which ends the process.
        engine
          .sharedFill(fill)
          .then(
            (entry) => {
              if (res.destroyed || res.writableEnded) return engine.abandon(fill);
              if (entry === undefined || !serveShared(engine, view, res, entry)) capture(engine, fill, view, res, next);
            },
            () => capture(engine, fill, view, res, next),
          )
          .catch((err) => {
            engine.abandon(fill);
            if (!res.headersSent) next(err);
            else res.destroy(err);
          });
        return;
      }
      capture(engine, d.fill, view, res, next);
  }
}

// Sends a stored entry: 304 when the request's validators match it. The stored head is set first
// (a shared entry's headers may be refused: nothing has changed yet but headers, and the page can
// still be rendered); then the hit enters the held pipeline after the store stage, with the
// stages after it mounted (http/stages-after-store.js), whatever the order of app.use().
function serveEntry(engine, view, res, entry) {
  setCacheStatus(res, engine.hitStatusOf(entry));
  if (engine.isNotModified(view, entry)) {
    const headers = engine.notModifiedHeaders(entry);
    for (const name in headers) res.setHeader(name, headers[name]);
    view.later.enter(view.req, res);
    res.writeHead(304);
    res.end();
    return;
  }
  sendWhole(engine, view, res, entry, view.method === 'HEAD' ? undefined : entry.body);
}

// An entry from the shared store, sent; false when it could not be (nothing was sent: the
// headers it set are taken back), for the page to be rendered instead.
function serveShared(engine, view, res, entry) {
  try {
    serveEntry(engine, view, res, entry);
    return true;
  } catch (err) {
    // the head went out, or a stage after the store failed on the hit: not rendered again
    if (res.headersSent || HeldResponse.on(res)?.afterStore) throw err;
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = 200;
    return false;
  }
}

// Status and headers set one by one (they win over any set before, as writeHead's would), then
// the body in one end(): see the top of this file for why not writeHead. The stored headers are
// set straight from the entry (never holding Age or Content-Length), with no copy per hit.
function sendWhole(engine, view, res, entry, body) {
  res.statusCode = entry.status;
  const stored = entry.headers;
  for (const name in stored) res.setHeader(name, stored[name]);
  res.setHeader('age', engine.ageOf(entry));
  res.setHeader('content-length', entry.length);
  view.later.enter(view.req, res);
  res.end(body);
}

// The cache stage of the held response (lib/http/held-response.js): the store decision is made
// on the head as the route set it (admit), the copy on the whole body as the stages before it
// (critical CSS, the ETag) left it, and the decision again on the head as it went out (confirm).
// A body past maxEntrySize is not stored; one the held response lets go (streamed past its
// bound) is not either.
function capture(engine, fill, view, res, next) {
  const req = view.req;
  engine.stripIgnored(req);
  setCacheStatus(res, engine.statusOf(fill));
  const held = HeldResponse.of(req, res);
  // The render must produce the whole page, to be stored (nginx does the same): asked of the
  // response (the held response decides the client's 304; res.send answers whole), never by
  // changing the request the route and the middleware after this one see.
  held.wantsWholeBody();
  sendsWhole(res, held);
  const isHead = req.method === 'HEAD';
  let routeLength; // the Content-Length the route set: a HEAD's body must have it to be stored
  let policy;
  let stale = false;
  let tagValue;
  let chunks = []; // a streamed body's copy (tap), null once it is not to be stored
  let size = 0;

  const stage = {
    place: 'cache',
    maxBuffer: engine.maxEntrySize,
    wantsWhole(response, request, ending) {
      view.later.seen(held); // every stage has joined: the ones after this a hit goes through
      const status = response.statusCode;
      routeLength = response.getHeader('content-length');
      if (isServerError(status) && fill.stale !== undefined) {
        stale = true;
        return true;
      }
      const headMap = response.getHeaders();
      const tagName = engine.tagHeader;
      if (headMap[tagName] !== undefined) {
        tagValue = headMap[tagName];
        response.removeHeader(tagName);
        delete headMap[tagName];
      }
      policy = engine.admit(fill, status, headMap);
      if (policy === undefined) return false;
      // a body that starts whole is held with the others; one that streams is copied as it goes
      return ending ? true : COPY;
    },
    tap(bytes) {
      if (chunks === null) return;
      size += bytes.length;
      if (size > engine.maxEntrySize) {
        chunks = null;
        engine.tooLarge(fill, policy);
        return;
      }
      chunks.push(bytes);
    },
    copied() {
      if (chunks === null) return;
      if (isHead && lacksBody(size, routeLength)) {
        chunks = null;
        engine.abandon(fill);
        return;
      }
      const copy = Buffer.allocUnsafeSlow(size);
      let at = 0;
      for (const c of chunks) at += c.copy(copy, at);
      chunks = null;
      storeWhenSent({ engine, fill, policy, res, headMap: res.getHeaders(), copy, tagValue });
    },
    released() {
      if (policy !== undefined) engine.tooLarge(fill, policy);
    },
    run(value, whole) {
      if (stale) {
        engine.servedStaleIfError();
        engine.abandon(fill);
        serveStale(engine, value, fill.stale, isHead);
        return;
      }
      if (isHead && lacksBody(whole.size, routeLength)) {
        engine.abandon(fill);
        return;
      }
      storeWhole({
        engine,
        fill,
        policy,
        res,
        headMap: res.getHeaders(),
        body: value.body,
        tagValue,
        notModified: value.notModified,
      });
    },
  };

  held.use(stage);

  res.once('close', () => {
    if (!fill.done) engine.abandon(fill);
  });

  next();
}

// A HEAD's route that sent no body, or less than its Content-Length (one that answers HEAD by
// itself, res.sendFile): nothing a later GET could be given, so nothing is stored.
function lacksBody(size, routeLength) {
  return size === 0 || (routeLength !== undefined && Number(routeLength) !== size);
}

// Express's res.send answers a fresh request 304 without its body, and a HEAD without its body.
// While it runs for a fill, the held response lends the response's `req` a view that asks for the
// whole GET body (the request itself is not touched), and gives the request back as soon as send
// calls the response's end (or write, writeHead): below the held response, the runtime's own
// methods (Bun's end reads `res.req` for keep-alive) see the client's request. The held response
// then makes the 304 decision on the client's validators, and node:http sends no body to a HEAD.
// The view holds what Express 4 and 5's res.send read of its request (`fresh`, `method`): a plain
// object, not one inheriting from the request, which would turn every request into a V8 prototype.
// Express makes `res.req` an own property; a response where it is not one is left alone.
const WHOLE_SEND = Symbol('ssrNative.wholeSend');
const WHOLE_VIEW = Object.freeze({ method: 'GET', fresh: false });
const hasOwn = Object.prototype.hasOwnProperty;

function sendsWhole(res, held) {
  const send = res.send;
  if (typeof send !== 'function' || send[WHOLE_SEND] === true) return;
  function wholeSend() {
    if (this !== res || held.lending || !hasOwn.call(this, 'req')) return send.apply(this, arguments);
    held.lendRequest(WHOLE_VIEW);
    try {
      return send.apply(this, arguments);
    } finally {
      held.giveBackRequest();
    }
  }
  wholeSend[WHOLE_SEND] = true;
  res.send = wholeSend;
}

// The stale copy in place of the failed response: the failure's headers (an error page's type,
// length, security headers) are dropped first.
function serveStale(engine, value, entry, isHead) {
  const res = value.res;
  const failedStatus = res.statusCode;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  setCacheStatus(res, engine.staleIfErrorStatusOf(entry, failedStatus));
  res.statusCode = entry.status;
  const stored = entry.headers;
  for (const name in stored) res.setHeader(name, stored[name]);
  res.setHeader('age', engine.ageOf(entry));
  res.setHeader('content-length', entry.length);
  value.replace(isHead ? Buffer.alloc(0) : entry.body, true);
}

// RFC 9211's Cache-Status, when the cacheStatus option asks (the engine never stores it)
function setCacheStatus(res, value) {
  if (value !== undefined) res.setHeader('cache-status', value);
}

module.exports = { responseCache };
