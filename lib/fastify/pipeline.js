'use strict';
// The held pipeline of a Fastify context (issue 53): fastifyCriticalCss and fastifyEtag join one
// onSend hook, added by the first of them registered there, which runs their stages in one fixed
// order whatever the registration order:
//   critical-css  inlines the page's critical CSS (a new payload, its ETag made right)
//   etag          the ETag of the payload as it now is, and the one 304 decision on it
// the order of lib/http/held-response.js. fastifyCompress needs no place here: its onSend hook is
// added to each route, and Fastify runs a route's hooks after the context's.
// A stage that joins a child context while a parent's pipeline holds a later stage (fastifyEtag at
// the root, fastifyCriticalCss inside an encapsulated plugin) runs after it, as Fastify orders
// hooks: the answers stay correct (the page is inlined once, its ETag names the bytes sent), but
// the 304 was decided on the page before inlining. That gets the one process warning naming the
// documented order.
// A stage is run(request, reply, payload) -> the payload to send (the same one when unchanged), or
// a Promise of it that never rejects. A plugin registered in an encapsulated child context makes
// that context's own pipeline (its hook runs after the parent's, as before).
// the one stage order (lib/http/held-response.js); this hook holds critical-css and etag
const { PLACES } = require('../http/held-response');
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

function runFrom(stages, at, request, reply, payload, done) {
  for (let i = at; i < stages.length; i++) {
    const out = stages[i].run(request, reply, payload);
    if (out instanceof Promise) {
      out.then((next) => runFrom(stages, i + 1, request, reply, next, done), done);
      return;
    }
    payload = out;
  }
  done(null, payload);
}

/** Joins `run` to the pipeline of `app`'s context at `place`, making it (and its hook) first. */
function joinPipeline(app, place, run) {
  const rank = PLACES.indexOf(place);
  let stages = Object.prototype.hasOwnProperty.call(app, PIPELINE) ? app[PIPELINE] : undefined;
  if (stages === undefined) {
    const parents = app[PIPELINE]; // a parent context's (inherited), run before this context's hooks
    if (parents !== undefined && parents.some((stage) => stage.rank > rank)) warnOnce();
    stages = [];
    app[PIPELINE] = stages;
    app.addHook('onSend', function pipelineOnSend(request, reply, payload, done) {
      runFrom(stages, 0, request, reply, payload, done);
    });
  }
  let at = stages.length;
  while (at > 0 && stages[at - 1].rank > rank) at--;
  stages.splice(at, 0, { rank, run });
}

module.exports = { joinPipeline };
