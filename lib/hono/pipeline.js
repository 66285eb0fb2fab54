'use strict';
// The held pipeline of a Hono request (issue 53): ssr-native/hono's criticalCss, etag and
// compress join it on their way in; the outermost of them, once every handler below it is done
// (after `await next()`), runs the stages that joined in one fixed order, whatever the order of
// app.use():
//   critical-css  inlines the page's critical CSS (a new body, its ETag made right)
//   etag          the ETag of the body as it now is, and the one 304 decision on it
//   compression   the compressed body, Vary, the ETag made weak
// the order of lib/http/held-response.js. A piece a request never reached (mounted on another
// path, or after serveStatic or a route that answered) has no stage for that request, as in an
// onion: a file served before compress is mounted is not compressed.
// A stage is a function (c, pipeline) of Hono's Context that reads and may replace c.res; it may
// return a Promise. The pipeline lives on the Context: one object per request, none when no piece
// runs. `notModified`: the response the etag stage replaced by its 304, so that compression gives
// the 304 the Vary and ETag the 200 would have had (RFC 9110 15.4.5).
// the one stage order of every framework (lib/http/held-response.js); Hono has no cache stage
const { PLACES } = require('../http/held-response');
const PIPELINE = Symbol('ssrNative.honoPipeline');

class HonoPipeline {
  constructor() {
    // one slot per place; a second piece of the same place (two etag() mounted) runs after the first
    this.stages = PLACES.map(() => null);
    this.notModified = undefined;
  }

  join(rank, stage) {
    const slot = this.stages[rank];
    if (slot === null) this.stages[rank] = stage;
    else this.stages[rank] = Array.isArray(slot) ? slot.concat(stage) : [slot, stage];
  }

  async run(c) {
    for (let rank = 0; rank < PLACES.length; rank++) {
      const slot = this.stages[rank];
      if (slot === null) continue;
      if (!Array.isArray(slot)) await slot(c, this);
      else for (const stage of slot) await stage(c, this);
    }
  }
}

/**
 * The Hono middleware of one piece: `stage(c)` joins the request's pipeline at `place`; the first
 * piece the request meets makes the pipeline and runs it after the handlers below it.
 */
function pipelinePiece(place, stage) {
  const rank = PLACES.indexOf(place);
  return async function joinPipeline(c, next) {
    const there = c[PIPELINE];
    if (there !== undefined) {
      there.join(rank, stage);
      await next();
      return;
    }
    const pipeline = new HonoPipeline();
    pipeline.join(rank, stage);
    c[PIPELINE] = pipeline;
    await next();
    await pipeline.run(c);
  };
}

module.exports = { pipelinePiece };
