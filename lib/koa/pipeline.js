'use strict';
// The held pipeline for Koa: compress(), cache(), etag(), conditional() and criticalCss() from
// ssr-native/koa each join it before `await next()`, and the outermost of them (the one that made
// it) runs it once the routes are done, after its own `await next()`. The stages run in the held
// response's order (lib/http/held-response.js), whatever the order of app.use():
//   critical-css  the page's critical CSS inlined (ctx.body replaced)
//   etag          koa-etag's tag of the body as it now is, then conditional()'s 304 on it
//   cache         the response cache's store decision and its copy
//   compression   koa-compress's answer: the compressed body
// A stage is { place, run(ctx, pipeline), mount? }: run may return a promise (awaited); its
// exception reaches Koa as the middleware's would. A cache hit (or a stale answer) enters after
// the store stage (enterAfterStore): critical CSS and the ETag are not run on the stored body,
// now or when a stage joins later; compression is, and a cache answering before compress()
// ran mounts it from what its misses saw (http/stages-after-store.js, stage.mount(ctx)).
const { PLACES, isAfterStore } = require('../http/held-response');
const { outOfRange } = require('../validate');

const PIPELINE = Symbol('ssrNative.koaPipeline');
const CACHE_RANK = PLACES.indexOf('cache');
const RANKS = new Map(PLACES.map((place, rank) => [place, rank]));
// The order docs/koa.md documents, named by the warning a cache gives when one cannot hold.
const DOCUMENTED_ORDER = 'conditional, compress, cache, etag, criticalCss, serve, the routes';

// A stage's rank: its place, and within the place the `last` ones (conditional's 304) after the others.
function order(stage) {
  return RANKS.get(stage.place) * 2 + (stage.last === true ? 1 : 0);
}

class KoaPipeline {
  /** Joins `stage` (if any) to the pipeline of `ctx`; returns the pipeline when this call made it
   *  (the caller is the outermost piece and runs it after `await next()`), else null. */
  static join(ctx, stage) {
    let pipeline = ctx[PIPELINE];
    let made = null;
    if (pipeline === undefined) made = pipeline = ctx[PIPELINE] = new KoaPipeline(ctx);
    if (stage !== undefined) pipeline.use(stage);
    return made;
  }

  /** The pipeline of `ctx` (a piece of ssr-native/koa mounted in front made it), else undefined. */
  static on(ctx) {
    return ctx[PIPELINE];
  }

  constructor(ctx) {
    this.ctx = ctx;
    this.stages = [];
    this.afterStore = false;
  }

  /** Adds a stage at its place (once); on a hit, a stage up to the store's is left out. */
  use(stage) {
    const rank = RANKS.get(stage.place);
    if (rank === undefined) throw outOfRange('stage.place', `one of ${PLACES.join(', ')}`, stage.place);
    if (this.afterStore && rank <= CACHE_RANK) return;
    const stages = this.stages;
    if (stages.includes(stage)) return;
    const key = order(stage);
    let at = stages.length;
    while (at > 0 && order(stages[at - 1]) > key) at--;
    stages.splice(at, 0, stage);
  }

  /** A stored answer is on ctx: only the stages after the store run on it. */
  enterAfterStore() {
    this.afterStore = true;
    this.stages = this.stages.filter(isAfterStore);
  }

  /** The stages in their order (run by the piece that made the pipeline, once): undefined, or a
   *  promise while a stage waits (most answers need none). */
  run(from = 0) {
    const stages = this.stages;
    for (let i = from; i < stages.length; i++) {
      const result = stages[i].run(this.ctx, this);
      if (result !== undefined && typeof result.then === 'function') return result.then(() => this.run(i + 1));
    }
    return undefined;
  }
}

/** A piece's middleware around the rest of the app: `stage` joins the pipeline of `ctx`, the rest
 *  runs, and the pipeline runs here when this piece made it (the outermost). */
async function aroundNext(ctx, next, stage) {
  const pipeline = KoaPipeline.join(ctx, stage);
  await next();
  if (pipeline === null) return;
  const ran = pipeline.run();
  if (ran !== undefined) await ran;
}

module.exports = { KoaPipeline, aroundNext, DOCUMENTED_ORDER };
