'use strict';
// The loads one URL-path resolution makes (send's or @fastify/send's: the path, its extensions,
// a directory's index files) and whether every one of them is `settled`: an answer built on them
// may be remembered until the cache generation moves (files/route-memo.js) only when each load
// either found a file (the cache watches it) or found its absence or a directory in a watched
// directory (FileCache.load's `settled`). Anything else (a load outside the watched tree, a
// special file, a file too large to hold) may change without the generation moving.
class SettledLoads {
  /** `engine`: the StaticEngine the loads go through. */
  constructor(engine) {
    this.engine = engine;
    this.settled = true;
  }

  /** Notes `result` (a FileCache load result) and returns it. */
  note(result) {
    if (result.status !== 'hit' && result.status !== 'loaded' && result.settled !== true) this.settled = false;
    return result;
  }

  /** StaticEngine.load: memory first, then the libuv pool; callback(result). */
  load(filePath, callback) {
    this.engine.load(filePath, (result) => callback(this.note(result)));
  }

  /** The same as a promise (resolved at once on a hit). */
  async get(filePath) {
    let result = this.engine.get(filePath);
    if (result.status !== 'hit') result = await result;
    return this.note(result);
  }
}

module.exports = { SettledLoads };
