'use strict';
// Hono's joiner of the held pipeline (http/pipeline.js): ssr-native/hono's criticalCss, etag and
// compress join the pipeline on the request's Context on their way in; the outermost of them, once
// every handler below it is done (after `await next()`), runs it over the Context (stages read and
// may replace c.res). Hono has no cache stage. A piece a request never reached (mounted on another
// path, or after serveStatic or a route that answered) has no stage for that request, as in an
// onion: a file served before compress is mounted is not compressed. `notModified`: the response
// the etag stage replaced by its 304, so that compression gives the 304 the Vary and ETag the 200
// would have had (RFC 9110 15.4.5).
const { Pipeline } = require('../http/pipeline');

const PIPELINE = Symbol('ssrNative.honoPipeline');

class HonoPipeline extends Pipeline {
  constructor() {
    super();
    this.notModified = undefined;
  }
}

/** The Hono middleware of one piece: `stage` ({ place, run(c, pipeline) }) joins the request's
 *  pipeline; the first piece the request meets makes it and runs it after the handlers below. */
function pipelinePiece(stage) {
  return async function joinPipeline(c, next) {
    const there = c[PIPELINE];
    if (there !== undefined) {
      there.use(stage);
      await next();
      return;
    }
    const pipeline = new HonoPipeline();
    pipeline.use(stage);
    c[PIPELINE] = pipeline;
    await next();
    const ran = pipeline.run(c);
    if (ran !== undefined) await ran;
  };
}

module.exports = { pipelinePiece };
