'use strict';
// The stages a cache hit still goes through, whatever the order of app.use(): a response cache
// answers a hit before the middleware mounted after it run, so it learns on its misses which
// stages placed after its own (compression) joined them, and mounts those on each hit
// (stage.mount, pipeline.js) before it sends the stored body, which then enters the
// pipeline after the store stage. A stage is kept only while it joined every miss the cache
// saw: one mounted on some paths only (app.use('/app', compression()) after the cache) cannot be
// told apart per hit, and gets the one warning that names the documented order. A hit before
// any miss in this process (a shared store filled by another) goes through only the stages
// mounted before the cache.
const { HeldResponse } = require('./held-response');
const { isAfterStore } = require('./pipeline');

const EXPRESS_ORDER = 'compression, serveStatic, responseCache, criticalCss, the routes';
const warned = new Set();

// one warning per documented order (one for Express and node:http, one for Koa)
function warnOnce(documented) {
  if (warned.has(documented)) return;
  warned.add(documented);
  process.emitWarning(
    'a stage mounted after responseCache (compression) runs on some of its misses only, so its ' +
      `hits may differ from its misses; mount it before responseCache (the documented order: ${documented})`,
    { code: 'SSR_NATIVE_MOUNT_ORDER' },
  );
}

class StagesAfterStore {
  /** `documented`: the order the warning names. */
  constructor(documented = EXPRESS_ORDER) {
    this.documented = documented;
    this.mounts = null; // the mount functions of the stages after the store, on every miss seen
  }

  /** A miss whose body starts on `held`: the stages after the store that joined it. */
  seen(held) {
    const known = this.mounts;
    if (known === null) {
      this.mounts = mountsAfterStore(held);
      return;
    }
    // the same stages as on every miss before (no copy made for that, the common case)
    let matched = 0;
    let other = false;
    for (const stage of held.stages) {
      if (stage.mount === undefined || !isAfterStore(stage)) continue;
      if (known.includes(stage.mount)) matched++;
      else other = true;
    }
    if (!other && matched === known.length) return;
    const mounts = mountsAfterStore(held);
    this.mounts = known.filter((mount) => mounts.includes(mount));
    warnOnce(this.documented);
  }

  /** A hit about to be sent on `res`: its held response (if any) enters after the store stage,
   *  with the stages after the store that joined every miss mounted on it. */
  enter(req, res) {
    const mounts = this.mounts;
    let held = HeldResponse.on(res);
    if (held === undefined) {
      if (mounts === null || mounts.length === 0) return; // nothing to run: no held response either
      held = HeldResponse.of(req, res);
    }
    this.join(held, req, res);
  }

  /** A hit on `pipeline` (a Pipeline: the held response, Koa's): it enters after the store stage
   *  and the stages after the store that joined every miss are mounted, each as mount(...args). */
  join(pipeline, ...args) {
    pipeline.enterAfterStore();
    const mounts = this.mounts;
    if (mounts === null) return;
    for (const mount of mounts) if (!pipeline.hasMount(mount)) mount(...args);
  }
}

function mountsAfterStore(held) {
  const mounts = [];
  for (const stage of held.stages) if (stage.mount !== undefined && isAfterStore(stage)) mounts.push(stage.mount);
  return mounts;
}

module.exports = { StagesAfterStore };
