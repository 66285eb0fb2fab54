'use strict';
// cacheCommonEngine(engine): serves the prerendered pages of an Angular CommonEngine from the
// native FileCache instead of reading them from disk on every request.
//
// CommonEngine.render() (@angular/ssr 17-18, @angular/ssr/node 19-21) first asks the private
// retrieveSSGPage(opts): for a URL whose <publicPath>/<pathname>/index.html exists and carries the
// SSG marker, it returns that file's text, re-read with fs.promises.readFile on every request;
// only the yes/no answer is memoised, in a Map that keeps every URL path ever asked (unbounded).
// TypeScript cannot override a private member in a subclass and esbuild bundles @angular/ssr into
// the app's server.mjs, so we take the instance and replace retrieveSSGPage on it: the same
// decisions, with the page text coming from memory (one read per file version; the FileCache
// drops an entry within ~1 s of an edit, by inotify) and a bounded memo. Rendering of pages that
// are not prerendered is left to the engine, untouched.
const fs = require('fs');
const path = require('path');
const { FileCache } = require('../files/file-cache');
const { PageMemo } = require('./page-memo');
const { describe, invalidType, outOfRange, ownError } = require('../validate');
const { ownOptions } = require('../options');

// The marker prerendering leaves in the page (the same expression in @angular/ssr 17 to 21).
const SSG_MARKER_REGEXP = /ng-server-context=["']\w*\|?ssg\|?\w*["']/;
const NOT_PRERENDERED = Object.freeze({ ssg: false });
const SUPPORTED = '@angular/ssr 17-18 (import from "@angular/ssr") and 19-21 (from "@angular/ssr/node")';
const DEFAULTS = { maxBytes: 64 * 1024 * 1024, maxFileSize: 4 * 1024 * 1024, maxPages: 10000 };
// every name cacheCommonEngine(engine, options) knows (lib/options.js refuses others)
const CACHE_COMMON_ENGINE_OPTIONS = [...Object.keys(DEFAULTS), 'cache'];

const caches = new WeakMap(); // engine -> SsgPageCache

/** The cache behind one engine's prerendered pages; what ssgCacheOf(engine) returns. */
class SsgPageCache {
  constructor(engine, settings) {
    this.engine = engine;
    this.ownsCache = settings.cache === undefined;
    this.cache = settings.cache || new FileCache({ maxBytes: settings.maxBytes, maxFileSize: settings.maxFileSize });
    this.memo = new PageMemo(settings.maxPages, settings.maxBytes);
    this.pending = new Map(); // pagePath -> Promise of a load in flight (bounded by requests in flight)
    this.hits = 0; // prerendered pages answered from memory
    this.reads = 0; // prerendered pages read from disk (one per file version, or per request when uncacheable)
    this.shared = 0; // requests answered by a read already in flight for the same page
    this.notPrerendered = 0; // lookups answered "render it" (the engine then renders)
    this.original = engine.retrieveSSGPage;
  }

  // The replacement for CommonEngine.retrieveSSGPage(opts): resolves to the page text or undefined.
  retrieve(opts) {
    const { publicPath, documentFilePath, url } = opts;
    if (!publicPath || !documentFilePath || url === undefined) return Promise.resolve(undefined);
    const { pathname } = new URL(url, 'resolve://');
    const pagePath = path.join(publicPath, pathname, 'index.html');
    const entry = this.memo.get(pagePath);
    if (entry !== undefined) {
      if (!entry.ssg) {
        this.notPrerendered++;
        return Promise.resolve(undefined);
      }
      if (entry.id !== undefined) {
        // touch() is one native call; the generation moves whenever any cached file changed.
        const generation = this.cache.touch(entry.id);
        if (generation === entry.generation) {
          this.hits++;
          return Promise.resolve(entry.html);
        }
        const hit = this.cache.lookup(pagePath);
        if (hit.status === 'hit' && hit.id === entry.id) {
          entry.generation = generation;
          this.hits++;
          return Promise.resolve(entry.html);
        }
      }
    }
    let pending = this.pending.get(pagePath);
    if (pending !== undefined) this.shared++;
    else {
      pending = this.load(pagePath, publicPath, documentFilePath);
      this.pending.set(pagePath, pending);
      const done = () => this.pending.delete(pagePath);
      pending.then(done, done);
    }
    return pending;
  }

  async load(pagePath, publicPath, documentFilePath) {
    // Do not resolve(): a URL must not reach outside publicPath (the check of @angular/ssr 21).
    const relativePath = path.relative(publicPath, pagePath);
    const outside =
      relativePath === '..' ||
      relativePath.startsWith('../') ||
      relativePath.startsWith('..\\') ||
      path.isAbsolute(relativePath);
    if (outside || pagePath === path.resolve(documentFilePath)) return this.notSsg(pagePath);

    const generation = this.cache.generation(); // before the read: a change meanwhile re-checks later
    const result = await this.cache.get(pagePath);
    if (result.status === 'hit' || result.status === 'loaded') {
      if (result.status === 'loaded') this.reads++;
      else this.hits++;
      const html = result.body.toString('utf8');
      if (!SSG_MARKER_REGEXP.test(html)) return this.notSsg(pagePath);
      const cached = result.status === 'hit' || result.cached;
      this.memo.set(pagePath, { ssg: true, html, id: cached ? result.id : undefined, generation });
      return html;
    }
    if (result.status === 'error' && (result.code === 'ENOENT' || result.code === 'ENOTDIR'))
      return this.notSsg(pagePath);
    // Over maxFileSize, a directory, a FIFO, EACCES...: do what CommonEngine does (read the path
    // with fs, which throws for a directory or an unreadable file) without keeping the text.
    this.reads++;
    const html = await fs.promises.readFile(pagePath, 'utf-8');
    if (!SSG_MARKER_REGEXP.test(html)) return this.notSsg(pagePath);
    this.memo.set(pagePath, { ssg: true, html: undefined, id: undefined, generation });
    return html;
  }

  notSsg(pagePath) {
    this.memo.set(pagePath, NOT_PRERENDERED);
    this.notPrerendered++;
    return undefined;
  }

  /** Counters for tests and monitoring; `cache` is the FileCache's own. */
  stats() {
    return {
      hits: this.hits,
      reads: this.reads,
      shared: this.shared,
      notPrerendered: this.notPrerendered,
      pages: this.memo.size,
      pageBytes: this.memo.bytes,
      cache: this.cache.stats(),
    };
  }

  /** Forgets every page (the next request for each reads it again). */
  clear() {
    this.memo.clear();
    if (this.ownsCache) this.cache.clear();
  }

  /** Gives the engine its own retrieveSSGPage back and frees the cache (if it created it). */
  close() {
    if (this.engine.retrieveSSGPage !== this.original) delete this.engine.retrieveSSGPage;
    caches.delete(this.engine);
    this.memo.clear();
    if (this.ownsCache) this.cache.close();
  }
}

/**
 * Returns `engine` (a CommonEngine) with its prerendered pages served from memory.
 * options: { maxBytes, maxFileSize, maxPages, cache } (cache: a FileCache to share, e.g. the one
 * of serveStatic over the same browser folder).
 */
function cacheCommonEngine(engine, options) {
  if (engine === null || typeof engine !== 'object') throw invalidType('engine', 'a CommonEngine instance', engine);
  const settings = readOptions(options);
  if (caches.has(engine)) return engine;
  checkShape(engine);
  const ssgCache = new SsgPageCache(engine, settings);
  Object.defineProperty(engine, 'retrieveSSGPage', {
    value: function retrieveSSGPage(opts) {
      return ssgCache.retrieve(opts);
    },
    configurable: true,
    enumerable: false,
    writable: true,
  });
  engine.pageIsSSG.clear(); // no longer read: keep it empty
  caches.set(engine, ssgCache);
  return engine;
}

/** The SsgPageCache behind an engine given to cacheCommonEngine, or undefined. */
function ssgCacheOf(engine) {
  return caches.get(engine);
}

function readOptions(options) {
  if (options === undefined) return { ...DEFAULTS };
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  ownOptions(options, CACHE_COMMON_ENGINE_OPTIONS, 'cacheCommonEngine(engine, options)');
  const settings = { ...DEFAULTS };
  for (const name of ['maxBytes', 'maxFileSize', 'maxPages']) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
    if (value < 0 || !Number.isInteger(value)) throw outOfRange(`options.${name}`, 'an integer >= 0', value);
    settings[name] = value;
  }
  if (options.cache !== undefined) {
    if (!(options.cache instanceof FileCache)) throw invalidType('options.cache', 'a FileCache', options.cache);
    settings.cache = options.cache;
  }
  return settings;
}

// The members the replacement relies on. A CommonEngine that lacks them (a future major, or
// something else entirely) gets a TypeError now rather than a cache that silently does nothing.
function checkShape(engine) {
  const problems = [];
  if (typeof engine.retrieveSSGPage !== 'function') problems.push('it has no retrieveSSGPage() method');
  if (!(engine.pageIsSSG instanceof Map)) problems.push('it has no pageIsSSG map');
  if (typeof engine.render !== 'function') problems.push('it has no render() method');
  else if (!renderCallsRetrieve(engine)) problems.push('its render() does not call retrieveSSGPage()');
  if (problems.length === 0) return;
  throw ownError(
    TypeError,
    'UNSUPPORTED_ENGINE',
    `cacheCommonEngine: unsupported CommonEngine (${describeVersion(engine)}): ${problems.join(', ')}. ` +
      `ssr-native supports the CommonEngine of ${SUPPORTED}.`,
  );
}

function renderCallsRetrieve(engine) {
  for (let proto = engine; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const own = Object.getOwnPropertyDescriptor(proto, 'render');
    if (
      own &&
      typeof own.value === 'function' &&
      Function.prototype.toString.call(own.value).includes('retrieveSSGPage')
    ) {
      return true;
    }
  }
  return false;
}

// Names the @angular/ssr the application has installed, when it can be found from the working
// directory (the engine itself carries no version).
function describeVersion(engine) {
  const ctor = describe(engine);
  try {
    const manifest = require.resolve('@angular/ssr/package.json', { paths: [process.cwd()] });
    const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    return `${ctor}; @angular/ssr ${version} is installed in ${path.dirname(path.dirname(path.dirname(manifest)))}`;
  } catch {
    return `${ctor}; @angular/ssr version unknown`;
  }
}

module.exports = { cacheCommonEngine, ssgCacheOf, SsgPageCache, SSG_MARKER_REGEXP };
