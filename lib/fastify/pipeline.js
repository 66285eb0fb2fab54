'use strict';
// Fastify's joiner of the held pipeline (http/pipeline.js): fastifyCriticalCss and fastifyEtag join
// the pipeline of the context they are registered in, whose one onSend hook (added by the first of
// them) runs it over { request, reply, payload }: a stage reads the payload and may replace it.
// fastifyCompress needs no place here: its onSend hook is added to each route, and Fastify runs a
// route's hooks after the context's. A plugin registered in an encapsulated child context makes
// that context's own pipeline, whose hook runs after the parent's, as Fastify orders hooks: when
// the parent's holds a later stage (fastifyEtag at the root, fastifyCriticalCss inside), the
// answers stay correct (the page is inlined once, its ETag names the bytes sent) but the 304 was
// decided on the page before inlining, and the one process warning names the documented order.
const { Pipeline } = require('../http/pipeline');

const PIPELINE = Symbol('ssrNative.fastifyPipeline');

let warned = false;

function warnOnce() {
  if (warned) return;
  warned = true;
  process.emitWarning(
    'fastifyCriticalCss is registered in a child context of the one fastifyEtag is registered in, ' +
      'so the 304 is decided on the page before inlining; register them in the same context (the ' +
      'documented order: fastifyCriticalCss, fastifyEtag, fastifyCompress, then the routes)',
    { code: 'SSR_NATIVE_MOUNT_ORDER' },
  );
}

/** Joins `stage` ({ place, run(sending, pipeline) }) to the pipeline of `app`'s context, making it
 *  (and its hook) first. A stage's sync exception leaves the hook; a rejection goes to done. */
function joinPipeline(app, stage) {
  let pipeline = Object.prototype.hasOwnProperty.call(app, PIPELINE) ? app[PIPELINE] : undefined;
  if (pipeline === undefined) {
    const parents = app[PIPELINE]; // a parent context's (inherited), run before this context's hooks
    if (parents !== undefined && parents.holdsLaterThan(stage)) warnOnce();
    pipeline = app[PIPELINE] = new Pipeline();
    app.addHook('onSend', function pipelineOnSend(request, reply, payload, done) {
      const sending = { request, reply, payload };
      const ran = pipeline.run(sending);
      if (ran === undefined) done(null, sending.payload);
      else ran.then(() => done(null, sending.payload), done);
    });
  }
  pipeline.use(stage);
}

module.exports = { joinPipeline };
