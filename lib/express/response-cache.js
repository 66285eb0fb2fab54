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
const { sentHead, whenHeadSent } = require('../cache/sent-head');

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

  function responseCacheMiddleware(req, res, next) {
    const view = { method: req.method, url: req.originalUrl || req.url, headers: req.headers, socket: req.socket, req };
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
      if (d.reason === 'method') res.once('finish', () => engine.invalidate(view, res.statusCode));
      next();
      return;
    case 'wait': {
      const onClose = () => cancel();
      const cancel = engine.wait(d.key, (timedOut) => {
        res.off('close', onClose);
        if (res.destroyed || res.writableEnded) return;
        if (timedOut) capture(engine, engine.fillWithoutLock(view, d), req, res, next);
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
              if (entry === undefined || !serveShared(engine, view, res, entry)) capture(engine, fill, req, res, next);
            },
            () => capture(engine, fill, req, res, next),
          )
          .catch((err) => {
            engine.abandon(fill);
            if (!res.headersSent) next(err);
            else res.destroy(err);
          });
        return;
      }
      capture(engine, d.fill, req, res, next);
  }
}

/** Sends a stored entry: 304 when the request's validators match it. */
function serveEntry(engine, view, res, entry) {
  if (engine.isNotModified(view.headers, entry)) {
    res.writeHead(304, engine.notModifiedHeaders(entry));
    res.end();
    return;
  }
  sendWhole(engine, res, entry, view.method === 'HEAD' ? undefined : entry.body);
}

// An entry from the shared store, sent; false when it could not be (nothing was sent: the
// headers it set are taken back), for the page to be rendered instead.
function serveShared(engine, view, res, entry) {
  try {
    serveEntry(engine, view, res, entry);
    return true;
  } catch (err) {
    if (res.headersSent) throw err;
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = 200;
    return false;
  }
}

// Status and headers set one by one (they win over any set before, as writeHead's would), then
// the body in one end(): see the top of this file for why not writeHead. The stored headers are
// set straight from the entry (never holding Age or Content-Length), with no copy per hit.
function sendWhole(engine, res, entry, body) {
  res.statusCode = entry.status;
  const stored = entry.headers;
  for (const name in stored) res.setHeader(name, stored[name]);
  res.setHeader('age', engine.ageOf(entry));
  res.setHeader('content-length', entry.length);
  res.end(body);
}

// Capture states
const BEFORE_HEAD = 0;
const STORING = 1;
const PASSING = 2;
const SWALLOWING = 3; // the origin failed and a stale-if-error copy goes out instead

function capture(engine, fill, req, res, next) {
  engine.stripIgnored(req);
  const headers = req.headers;
  // The render must produce the whole page, to be stored (nginx does the same): the client's
  // validators are the cache's to answer on later hits.
  delete headers['if-none-match'];
  delete headers['if-modified-since'];
  const wasHead = req.method === 'HEAD';
  if (wasHead) req.method = 'GET'; // the body is stored for later GETs; node sends none for HEAD

  const up = { writeHead: res.writeHead, write: res.write, end: res.end };
  let state = BEFORE_HEAD;
  let policy;
  let headMap;
  let tagValue;
  let chunks = [];
  let size = 0;

  const restore = () => {
    res.writeHead = up.writeHead;
    res.write = up.write;
    res.end = up.end;
    if (wasHead) req.method = 'HEAD';
  };

  function onHead(status, extra) {
    headMap = res.getHeaders();
    if (extra !== undefined) mergeHeaders(headMap, extra);
    if (isServerError(status) && fill.stale !== undefined) {
      state = SWALLOWING;
      return extra;
    }
    const tagName = engine.tagHeader;
    if (headMap[tagName] !== undefined) {
      tagValue = headMap[tagName];
      if (res.hasHeader(tagName)) res.removeHeader(tagName);
      if (extra !== undefined) extra = withoutHeader(extra, tagName);
    }
    policy = engine.admit(fill, status, headMap);
    state = policy === undefined ? PASSING : STORING;
    if (state === PASSING) chunks = undefined;
    return extra;
  }

  function collect(chunk, encoding) {
    if (chunk === undefined || chunk === null) return;
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += buf.length;
    if (size > engine.maxEntrySize) {
      state = PASSING;
      chunks = undefined;
      engine.tooLarge(fill, policy);
      return;
    }
    chunks.push(buf);
  }

  res.writeHead = function writeHead(status, reason, extra) {
    if (state === BEFORE_HEAD) {
      const headersArg = typeof reason === 'string' ? extra : reason;
      const changed = onHead(status, headersArg);
      if (state === SWALLOWING) return this;
      if (changed !== headersArg)
        return typeof reason === 'string'
          ? up.writeHead.call(this, status, reason, changed)
          : up.writeHead.call(this, status, changed);
    } else if (state === SWALLOWING) {
      return this;
    }
    return up.writeHead.apply(this, arguments);
  };

  res.write = function write(chunk, encoding, callback) {
    if (state === BEFORE_HEAD && !this.headersSent) onHead(this.statusCode, undefined);
    if (state === SWALLOWING) {
      const cb = typeof encoding === 'function' ? encoding : callback;
      if (typeof cb === 'function') process.nextTick(cb);
      return true;
    }
    if (state === STORING) collect(chunk, encoding);
    return up.write.apply(this, arguments);
  };

  res.end = function end(chunk, encoding, callback) {
    if (state === BEFORE_HEAD && !this.headersSent) onHead(this.statusCode, undefined);
    if (state === SWALLOWING) {
      restore();
      const cb = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback;
      engine.servedStaleIfError();
      engine.abandon(fill);
      serveStale(engine, this, fill.stale, wasHead);
      if (typeof cb === 'function') process.nextTick(cb);
      return this;
    }
    if (state === STORING && typeof chunk !== 'function') collect(chunk, encoding);
    restore();
    const result = up.end.apply(this, arguments);
    if (state === STORING) {
      const body = Buffer.allocUnsafeSlow(size);
      let at = 0;
      for (const c of chunks) at += c.copy(body, at);
      chunks = undefined;
      // Decided again on the head as it went out: listeners and compression in front may add
      // Set-Cookie or Cache-Control after our hook, until the head is written.
      const finished = () => {
        try {
          const final = engine.confirm(fill, policy, headMap, sentHead(this));
          if (final !== undefined) engine.store(fill, final, headMap, body, tagValue);
        } catch {
          engine.abandon(fill); // a cache that fails to store costs the next request a render, nothing more
        }
      };
      whenHeadSent(this, finished);
    } else if (state === BEFORE_HEAD) {
      engine.abandon(fill);
    }
    return result;
  };

  res.once('close', () => {
    if (!fill.done) {
      restore();
      engine.abandon(fill);
    }
  });

  next();
}

// The stale copy in place of the failed response: the failure's headers (an error page's type,
// length, security headers) are dropped first.
function serveStale(engine, res, entry, wasHead) {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  sendWhole(engine, res, entry, wasHead ? undefined : entry.body);
}

// writeHead's header argument (an object, [[name, value], ...] or [name, value, ...]) into a map.
function mergeHeaders(map, extra) {
  if (Array.isArray(extra)) {
    if (extra.length > 0 && Array.isArray(extra[0])) for (const [k, v] of extra) map[String(k).toLowerCase()] = v;
    else for (let i = 0; i + 1 < extra.length; i += 2) map[String(extra[i]).toLowerCase()] = extra[i + 1];
  } else if (extra !== null && typeof extra === 'object') {
    for (const k of Object.keys(extra)) map[k.toLowerCase()] = extra[k];
  }
}

function withoutHeader(extra, name) {
  if (Array.isArray(extra)) {
    if (extra.length > 0 && Array.isArray(extra[0])) return extra.filter(([k]) => String(k).toLowerCase() !== name);
    const out = [];
    for (let i = 0; i + 1 < extra.length; i += 2)
      if (String(extra[i]).toLowerCase() !== name) out.push(extra[i], extra[i + 1]);
    return out;
  }
  if (extra === null || typeof extra !== 'object') return extra;
  const out = {};
  for (const k of Object.keys(extra)) if (k.toLowerCase() !== name) out[k] = extra[k];
  return out;
}

module.exports = { responseCache };
