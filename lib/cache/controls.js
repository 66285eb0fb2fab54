'use strict';
// The control methods every response-cache adapter's middleware carries (Express's responseCache,
// Koa's cache()): purge, purgePrefix, purgeTag, clear, stats, close and the engine itself.

/** Adds the controls of `engine` to `middleware` and returns it. */
function attachControls(middleware, engine) {
  middleware.purge = (url) => engine.purge(url);
  middleware.purgePrefix = (prefix) => engine.purgePrefix(prefix);
  middleware.purgeTag = (tag) => engine.purgeTag(tag);
  middleware.clear = () => engine.clear();
  middleware.stats = () => engine.stats();
  middleware.close = () => engine.close();
  middleware.engine = engine;
  return middleware;
}

module.exports = { attachControls };
