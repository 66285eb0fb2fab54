'use strict';
// cache(options): the response cache as Koa 2/3 middleware (exported by ssr-native/koa),
// mounted before the routes it caches; its store is a stage of the Koa pipeline (pipeline.js),
// after critical CSS and the ETag, before compression. What it stores is ctx.body (a string, a
// Buffer, a stream read to its end, or JSON as Koa serialises it), with ctx.status and the
// response headers; a hit sets ctx.status, the headers and ctx.body to the stored Buffer, so
// middleware in front (koa-compress) sees an identity body as from any route.
const { Readable } = require('stream');
const { CacheEngine } = require('../cache/engine');
const { isServerError } = require('../http/cache-rules');
const { isNotModified } = require('../http/conditional');
const { attachControls } = require('../cache/controls');
const { storeWhole } = require('../cache/store-step');
const { StagesAfterStore } = require('../http/stages-after-store');
const { KoaPipeline, aroundNext, DOCUMENTED_ORDER } = require('./pipeline');

// Koa honours X-Forwarded-Host / -Proto (ctx.host, ctx.protocol) when app.proxy is set.
const trustsForwarding = (view) => view.ctx.app.proxy === true;

function cache(options) {
  const engine = new CacheEngine(options, { trustsForwarding });
  const later = new StagesAfterStore(DOCUMENTED_ORDER); // the stages a hit still goes through

  function koaResponseCache(ctx, next) {
    // joins with no stage yet: a miss adds its store stage, a hit enters after it
    return aroundNext(ctx, () => answer(engine, later, ctx, next));
  }
  return attachControls(koaResponseCache, engine);
}

async function answer(engine, later, ctx, next) {
  const req = ctx.req;
  const view = { method: req.method, url: ctx.originalUrl, headers: req.headers, socket: req.socket, ctx };
  let fill;
  for (;;) {
    const d = engine.begin(view);
    if (d.action === 'hit') return serveEntry(engine, later, ctx, view, d.entry);
    if (d.action === 'pass') {
      setCacheStatus(ctx, engine.statusOf(d));
      await next();
      if (d.reason === 'method') engine.invalidate(view, ctx.status);
      return;
    }
    if (d.action === 'fill') {
      fill = d.fill;
      if (engine.asksShared(fill)) {
        let entry;
        try {
          entry = await engine.sharedFill(fill);
        } catch {
          entry = undefined;
        }
        if (entry !== undefined) return serveEntry(engine, later, ctx, view, entry);
      }
      break;
    }
    const outcome = await waitFor(engine, d.key, ctx.res);
    if (outcome === 'gone') return;
    if (outcome === 'timeout') {
      fill = engine.fillWithoutLock(view, d);
      break;
    }
  }
  return render(engine, later, fill, ctx, next);
}

function waitFor(engine, key, res) {
  return new Promise((resolve) => {
    const onClose = () => {
      cancel();
      resolve('gone');
    };
    const cancel = engine.wait(key, (timedOut) => {
      res.off('close', onClose);
      resolve(timedOut ? 'timeout' : 'woken');
    });
    res.once('close', onClose);
  });
}

// A stored answer: it enters the pipeline after the store stage (compression still runs on it).
function serveEntry(engine, later, ctx, view, entry) {
  later.join(KoaPipeline.on(ctx), ctx);
  setCacheStatus(ctx, engine.hitStatusOf(entry));
  if (engine.isNotModified(view, entry)) {
    ctx.status = 304;
    ctx.set(engine.notModifiedHeaders(entry));
    return;
  }
  sendEntry(engine, ctx, entry);
}

// The stored headers straight from the entry (they never hold Age or Content-Length): no copy
// per hit.
function sendEntry(engine, ctx, entry) {
  ctx.status = entry.status;
  ctx.set(entry.headers);
  ctx.set('age', engine.ageOf(entry));
  ctx.set('content-length', entry.length);
  ctx.body = entry.body;
}

// A miss: the request goes to the routes as it came (its method, its validators); the store
// stage, in the pipeline's order (after critical CSS and the ETag, before compression), keeps the
// whole page, then answers the client's 304 when its validators hold. A HEAD stores the body its
// route gave (Koa sends none), never an empty one.
async function render(engine, later, fill, ctx, next) {
  const req = ctx.req;
  // ctx.url and ctx.querystring read req.url; ctx.originalUrl is Koa's own copy
  if (engine.stripIgnored(req)) ctx.originalUrl = ctx.request.originalUrl = engine.keys.strip(ctx.originalUrl);
  setCacheStatus(ctx, engine.statusOf(fill));
  let failure;
  try {
    await next();
  } catch (err) {
    failure = err;
  }
  const stale = fill.stale;
  if (stale !== undefined && (failure !== undefined || isServerError(ctx.status))) {
    // RFC 5861 4: the stale copy stands in for the failure, which is still reported
    if (failure !== undefined) ctx.app.emit('error', failure, ctx);
    engine.servedStaleIfError();
    engine.abandon(fill);
    // a throw is answered as Koa's onerror would: its error's status, else 500
    const failedStatus = failure === undefined ? ctx.status : Number.isInteger(failure.status) ? failure.status : 500;
    for (const name of Object.keys(ctx.response.headers)) ctx.remove(name);
    later.join(KoaPipeline.on(ctx), ctx);
    sendEntry(engine, ctx, stale);
    setCacheStatus(ctx, engine.staleIfErrorStatusOf(stale, failedStatus));
    return;
  }
  if (failure !== undefined) {
    engine.abandon(fill);
    throw failure;
  }
  // a response that ends without the store stage (a middleware between threw) frees the fill
  ctx.res.once('close', () => engine.abandon(fill));
  KoaPipeline.on(ctx).use({
    place: 'cache',
    decidesNotModified: true, // conditional() leaves this response's 304 to it (etag.js)
    async run(_ctx, pipeline) {
      later.seen(pipeline); // every stage has joined: the ones after this a hit goes through
      try {
        await storeBody(engine, fill, ctx);
      } catch (err) {
        engine.abandon(fill);
        throw err;
      }
    },
  });
}

async function storeBody(engine, fill, ctx) {
  const res = ctx.res;
  const tagName = engine.tagHeader;
  const tagValue = res.getHeader(tagName);
  if (tagValue !== undefined) ctx.remove(tagName);
  if (ctx.respond === false || !ctx.writable) return engine.abandon(fill);
  // the one 304 decision, read as koa-conditional-get reads it, on the page as it now stands
  const notModified = isNotModified(
    ctx.method,
    ctx.status,
    ctx.request.headers,
    res.getHeader('etag'),
    res.getHeader('last-modified'),
    'koa',
  );
  await storeWholeBody(engine, fill, ctx, tagValue, notModified);
  if (notModified) {
    ctx.status = 304;
    ctx.body = null; // as koa-conditional-get answers: no body, no Content-Type or -Length
  }
  return undefined;
}

async function storeWholeBody(engine, fill, ctx, tagValue, notModified) {
  const headersAtAdmission = ctx.response.headers;
  const policy = engine.admit(fill, ctx.status, headersAtAdmission);
  if (policy === undefined) return undefined;
  const isHead = ctx.method === 'HEAD';
  const routeLength = headersAtAdmission['content-length']; // a HEAD's body must have it to be stored
  let body = ctx.body;
  if (body instanceof Readable || (body !== null && typeof body === 'object' && typeof body.pipe === 'function')) {
    const read = await readUpTo(body, engine.maxEntrySize);
    if (read.rest !== undefined) {
      // too large to store: the client gets what was read, then the rest, as it streams
      ctx.body = read.rest;
      return engine.tooLarge(fill, policy);
    }
    body = read.body;
  } else if (typeof body === 'string') {
    body = Buffer.from(body);
  } else if (body === null || body === undefined) {
    body = Buffer.alloc(0);
  } else if (!Buffer.isBuffer(body)) {
    body = Buffer.from(JSON.stringify(body)); // what Koa's respond sends for an object
  }
  // A HEAD's route that gave no body, or not the one its Content-Length announces: nothing a later
  // GET could be given.
  if (isHead && (body.length === 0 || (routeLength !== undefined && Number(routeLength) !== body.length))) {
    return engine.abandon(fill);
  }
  // Stored on the head as it goes out: middleware in front runs after `await next()`
  // (koa-session sets its cookie there) until Koa writes the response.
  const stored = storeWhole({
    engine,
    fill,
    policy,
    res: ctx.res,
    headMap: headersAtAdmission,
    body,
    tagValue,
    notModified,
  });
  if (stored === undefined) return undefined;
  if (ctx.body !== null && ctx.body !== undefined) ctx.body = stored; // the bytes stored are the bytes sent
  return undefined;
}

// Reads a stream up to `max` bytes: { body } when it ended by then, else { rest }: a stream of
// what was read followed by the remainder.
async function readUpTo(stream, max) {
  const chunks = [];
  let size = 0;
  const iterator = stream[Symbol.asyncIterator]
    ? stream[Symbol.asyncIterator]()
    : Readable.from(stream)[Symbol.asyncIterator]();
  for (;;) {
    const { done, value } = await iterator.next();
    if (done) break;
    const buf =
      typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    chunks.push(buf);
    size += buf.length;
    if (size > max) {
      const rest = Readable.from(
        (async function* () {
          yield* chunks;
          for (;;) {
            const next = await iterator.next();
            if (next.done) return;
            yield next.value;
          }
        })(),
      );
      return { rest };
    }
  }
  return { body: Buffer.concat(chunks, size) };
}

// RFC 9211's Cache-Status, when the cacheStatus option asks (the engine never stores it)
function setCacheStatus(ctx, value) {
  if (value !== undefined) ctx.set('cache-status', value);
}

module.exports = { cache };
