'use strict';
// Koa's joiner of the held pipeline (http/pipeline.js): compress(), cache(), etag(), conditional()
// and criticalCss() from ssr-native/koa each join the pipeline on ctx before `await next()`, and
// the outermost of them (the one that made it) runs it over ctx once the routes are done, after
// its own `await next()`; a stage's exception reaches Koa as the middleware's would.
const { Pipeline } = require('../http/pipeline');

const PIPELINE = Symbol('ssrNative.koaPipeline');
// The order docs/koa.md documents, named by the warning a cache gives when one cannot hold.
const DOCUMENTED_ORDER = 'conditional, compress, cache, etag, criticalCss, serve, the routes';

const KoaPipeline = {
  /** Joins `stage` (if any) to the pipeline of `ctx`; returns the pipeline when this call made it
   *  (the caller is the outermost piece and runs it after `await next()`), else null. */
  join(ctx, stage) {
    let pipeline = ctx[PIPELINE];
    let made = null;
    if (pipeline === undefined) made = pipeline = ctx[PIPELINE] = new Pipeline();
    if (stage !== undefined) pipeline.use(stage);
    return made;
  },

  /** The pipeline of `ctx` (a piece of ssr-native/koa mounted in front made it), else undefined. */
  on(ctx) {
    return ctx[PIPELINE];
  },
};

/** A piece's middleware around the rest of the app: `stage` joins the pipeline of `ctx`, the rest
 *  runs, and the pipeline runs here when this piece made it (the outermost). */
async function aroundNext(ctx, next, stage) {
  const pipeline = KoaPipeline.join(ctx, stage);
  await next();
  if (pipeline === null) return;
  const ran = pipeline.run(ctx);
  if (ran !== undefined) await ran;
}

module.exports = { KoaPipeline, aroundNext, DOCUMENTED_ORDER };
