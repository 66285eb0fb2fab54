'use strict';
// The held pipeline, framework-neutral: the stages that want a response whole run over one held
// target in one fixed order, whatever the order the app mounted their pieces in:
//   critical-css  inlines the page's critical CSS (may replace the body)
//   etag          the ETag of the body as it now is, and the one 304 decision on it
//   cache         the response cache's store decision and its copy
//   compression   the compressed body, Vary
// Each framework makes the pipeline where it first meets the response (Express and node:http:
// the held response, http/held-response.js; Koa and Hono: the outermost piece, after `await
// next()`; Fastify: one onSend hook per context) and every other piece joins it (use).
// A stage is { place, last?, run(target, pipeline), mount? }: within a place the `last` ones run
// after the others, else in the order they joined; a stage joins once. `run` may return a promise
// (the pipeline waits for it); an exception or a rejection reaches the framework as its
// middleware's would (the held response overrides runStage for its own rule). A cache hit enters
// the pipeline after the store stage (enterAfterStore): the stages up to the store's are left
// out, now and when they join later; the ones after it run. `mount(...)` joins a stage to a
// pipeline its piece never saw (a hit answered by a cache mounted before it:
// stages-after-store.js).
const { outOfRange } = require('../validate');

const PLACES = ['critical-css', 'etag', 'cache', 'compression'];
const STORE_RANK = PLACES.indexOf('cache');

/** A stage's order: its place's rank, and within the place the `last` ones after the others. */
function orderOf(stage) {
  const rank = PLACES.indexOf(stage.place);
  if (rank === -1) throw outOfRange('stage.place', `one of ${PLACES.join(', ')}`, stage.place);
  return stage.last === true ? rank * 2 + 1 : rank * 2;
}

/** Whether `stage` runs after the store (compression): on a cache hit as well. */
function isAfterStore(stage) {
  return PLACES.indexOf(stage.place) > STORE_RANK;
}

class Pipeline {
  constructor() {
    this.stages = [];
    this.afterStore = false; // a cache hit: only the stages after the store run
  }

  /** Adds `stage` at its place, once; on a hit, a stage up to the store's is left out. */
  use(stage) {
    const key = orderOf(stage);
    if (this.afterStore && key <= STORE_RANK * 2 + 1) return;
    const stages = this.stages;
    let at = stages.length;
    for (let i = 0; i < at; i++) if (stages[i] === stage) return;
    while (at > 0 && orderOf(stages[at - 1]) > key) at--;
    if (at === stages.length) stages.push(stage);
    else stages.splice(at, 0, stage);
  }

  /** A stored answer is sent: the stages up to the store's (critical CSS, the ETag of the stored
   *  body) are left out, now and when they join later; the ones after it run. */
  enterAfterStore() {
    this.afterStore = true;
    const stages = this.stages;
    let kept = 0;
    for (let i = 0; i < stages.length; i++) if (isAfterStore(stages[i])) stages[kept++] = stages[i];
    stages.length = kept;
  }

  /** Whether a stage that joined runs after `stage` would (a stage joining a later pipeline
   *  than this one cannot keep the documented order). */
  holdsLaterThan(stage) {
    const key = orderOf(stage);
    for (const joined of this.stages) if (orderOf(joined) > key) return true;
    return false;
  }

  /** Whether a stage carrying `mount` has joined. */
  hasMount(mount) {
    for (const stage of this.stages) if (stage.mount === mount) return true;
    return false;
  }

  /** The stages in their order over `target`, from index `from`: undefined when none returned a
   *  promise, else a promise of the rest. A stage that joins while they run takes its place. */
  run(target, from = 0) {
    const stages = this.stages;
    for (let i = from; i < stages.length; i++) {
      const result = this.runStage(stages[i], target);
      if (result !== undefined && result !== null && typeof result.then === 'function') {
        return result.then(() => this.run(target, i + 1));
      }
    }
    return undefined;
  }

  /** One stage over `target` (a framework's pipeline may wrap it: the held response does). */
  runStage(stage, target) {
    return stage.run(target, this);
  }
}

module.exports = { Pipeline, PLACES, isAfterStore };
