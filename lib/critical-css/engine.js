'use strict';
// The critical-CSS engine: what Angular's InlineCriticalCssProcessor (beasties 0.5.4 with
// Angular's options) does to a server-rendered page, with each stylesheet parsed once into a
// native plan instead of once per page.
//
//   const engine = new CriticalCssEngine({ path: browserDistFolder });
//   const html = engine.process(pageHtml); // string -> string, Buffer -> Buffer
//
// A page the engine cannot process (limits, shapes it does not reproduce) comes back as it was
// and is counted in stats().skipped; page content never makes process() throw.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const native = require('../native');
const { beastiesVersion } = require('./beasties-version.js');
const { BoundedLru } = require('../bounded/lru');
const { ClearingMap } = require('../bounded/clearing-map');
const { invalidType, outOfRange } = require('../validate');

// beasties' getCssAsset: how an href becomes a file under `path`.
const LEADING_SLASH_OR_QUERY_RE = /^\/(?!\/)|[?#].*$/g;
const PUBLIC_PATH_RE = /(^\/(?!\/)|\/$)/g;
const REMOTE_URL_RE = /^https?:\/\//;

const FLAG_COMPRESS = 1;
const FLAG_NOSCRIPT = 2;
const FLAG_FONTS = 4;
const FLAG_BEASTIES_0_4 = 8;
// Angular 22.2's loader of deferred stylesheets (beasties 0.5's preload: 'media-script')
const FLAG_MEDIA_SCRIPT = 16;
// a prerendered page already inlined is left as it is (Angular serves those as built)
const FLAG_LEAVE_INLINED_PRERENDERED = 32;
const FLAG_LEAVE_INLINED = 64;
const MAX_HREFS = 256; // hrefs whose file is remembered (pages link the same few)
const MAX_HREF_LENGTH = 1024;

function bool(value, fallback, name) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw invalidType(name, 'a boolean', value);
  }
  return value;
}

function defaultReader() {
  // fs.readFileSync, re-read only when the file's size or mtime changes, so that a page does
  // not cost a read of the whole stylesheet.
  const seen = new ClearingMap(256);
  return (file) => {
    let stat;
    try {
      stat = fs.statSync(file);
    } catch {
      seen.delete(file);
      return null;
    }
    const known = seen.get(file);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.data;
    const data = fs.readFileSync(file);
    seen.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, data });
    return data;
  };
}

// How the deferred link is loaded: by default as the Angular of that beasties does it (21:
// 'media', an onload handler and Angular's CSP override; 22.2: 'media-script'). 'media' under
// beasties 0.5 is beasties 0.5 with Angular 21's processor; 0.4 has no 'media-script'.
function preloadFlags(preload, version) {
  const chosen = preload === undefined ? (version === '0.4' ? 'media' : 'media-script') : preload;
  if (chosen !== 'media' && chosen !== 'media-script') {
    throw outOfRange('preload', "'media' or 'media-script' (Angular's modes)", preload);
  }
  if (chosen === 'media-script' && version === '0.4') {
    throw outOfRange('preload', "'media' with beasties '0.4' ('media-script' needs '0.5', Angular 22.2+)", preload);
  }
  return (version === '0.4' ? FLAG_BEASTIES_0_4 : 0) | (chosen === 'media-script' ? FLAG_MEDIA_SCRIPT : 0);
}

class CriticalCssEngine {
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalidType('options', 'an object', options);
    }
    if (options.path !== undefined && typeof options.path !== 'string') {
      throw invalidType('options.path', 'a string', options.path);
    }
    if (options.publicPath !== undefined && options.publicPath !== null && typeof options.publicPath !== 'string') {
      throw invalidType('options.publicPath', 'a string', options.publicPath);
    }
    for (const unsupported of ['pruneSource', 'reduceInlineStyles', 'mergeStylesheets']) {
      if (bool(options[unsupported], false, unsupported)) {
        throw outOfRange(`options.${unsupported}`, "false (Angular's setting, the only one supported)", true);
      }
    }
    const maxPlans = options.maxPlans === undefined ? 16 : options.maxPlans;
    if (!Number.isInteger(maxPlans) || maxPlans < 1) {
      throw outOfRange('options.maxPlans', 'a positive integer', maxPlans);
    }
    if (options.readStylesheet !== undefined && typeof options.readStylesheet !== 'function') {
      throw invalidType('options.readStylesheet', 'a function', options.readStylesheet);
    }
    this.path = options.path === undefined ? '' : options.path;
    this.publicPath = options.publicPath || '';
    this.flags =
      (bool(options.minify, false, 'minify') || bool(options.compress, false, 'compress') ? FLAG_COMPRESS : 0) |
      (bool(options.noscriptFallback, true, 'noscriptFallback') ? FLAG_NOSCRIPT : 0) |
      (bool(options.inlineFonts, true, 'inlineFonts') ? FLAG_FONTS : 0) |
      (bool(options.leaveInlinedPrerendered, false, 'leaveInlinedPrerendered') ? FLAG_LEAVE_INLINED_PRERENDERED : 0) |
      (bool(options.leaveInlined, false, 'leaveInlined') ? FLAG_LEAVE_INLINED : 0) |
      preloadFlags(options.preload, beastiesVersion(options.beasties, this.path || process.cwd()));
    this.readStylesheet = options.readStylesheet || defaultReader();
    this.maxPlans = maxPlans;
    // content hash -> { handle, bytes, rules }, first in first out (looked up with peek); a plan
    // evicted takes the sources that point at it along, so that they do not keep it alive.
    this.plans = new BoundedLru({
      maxEntries: maxPlans,
      onEvict: (key, plan) => {
        for (const [file, source] of this.sources) if (source.plan === plan) this.sources.delete(file);
      },
    });
    this.sources = new ClearingMap(4 * maxPlans); // file -> { data, plan } (the last content seen for the file)
    this.files = new ClearingMap(MAX_HREFS); // href -> the file it names, or null (fileFor)
    this.refused = new ClearingMap(4 * maxPlans); // content hashes of stylesheets the engine cannot compile
    this.compiling = new Map(); // content hash -> Promise of its compilation on the pool
    this.uncompiled = null; // while deferring (deferCompiles): [{ key, data }] to compile
    // pages: processed; inlined: at least one linked stylesheet read and applied; unstyled: links
    // found and none readable (the page comes out with its links as they were); overBound: sent
    // unchanged, past an output bound (see critical_css.h Limits); outsideFolder: hrefs refused
    // because the file they name resolves (links followed) outside `path`.
    this.counters = {
      pages: 0,
      inlined: 0,
      unstyled: 0,
      skipped: 0,
      overBound: 0,
      compiled: 0,
      compileErrors: 0,
      readErrors: 0,
      outsideFolder: 0,
    };
    this.lastSkipReason = '';
    this.lastUnreadable = null; // { href, file } of the last linked stylesheet that could not be read
    this.pageLinks = 0; // stylesheet links the engine resolved on the page being processed
    this.pagePlans = 0; // of which read and compiled
    this.unresolved = false; // the last href's file could not be resolved (missing): not remembered
    this.resolve = (href) => this.planFor(href);
  }

  // beasties' getCssAsset without the read: the file an href names, or null. Remembered per
  // href (a site links a handful of stylesheets, every page the same ones): the regexes and
  // path resolution run once, not on every page.
  fileFor(href) {
    const known = this.files.get(href);
    if (known !== undefined) return known;
    this.unresolved = false;
    const file = this.resolveFile(href);
    if (href.length > MAX_HREF_LENGTH) return file; // bounded memory: a page's hrefs are its author's
    if (this.unresolved) return file; // not there yet: checked again once it is
    this.files.set(href, file);
    return file;
  }

  resolveFile(href) {
    let normalizedPath = href.replace(LEADING_SLASH_OR_QUERY_RE, '');
    const pathPrefix = `${this.publicPath.replace(PUBLIC_PATH_RE, '')}/`;
    if (normalizedPath.startsWith(pathPrefix) && !(pathPrefix === '/' && normalizedPath.startsWith('//'))) {
      normalizedPath = normalizedPath.substring(pathPrefix.length).replace(/^\//, '');
    }
    if (REMOTE_URL_RE.test(normalizedPath) || normalizedPath.startsWith('//')) return null;
    const filename = path.resolve(this.path, normalizedPath);
    if (path.relative(this.path, filename).startsWith('..')) return null;
    return this.inFolder(filename);
  }

  // The file `filename` names with every link resolved, when that stays inside the folder, else
  // null (counted): a link inside the folder must not let an href read a file outside it. The
  // resolved path is what is read, so the check and the read name the same file (a link swapped
  // after the check is not followed again while the href is remembered).
  inFolder(filename) {
    if (this.path === '') return filename;
    let real;
    try {
      if (this.realRoot === undefined) this.realRoot = fs.realpathSync(this.path);
      real = fs.realpathSync(filename);
    } catch {
      this.unresolved = true;
      return filename; // not there (yet): the read fails and is counted as a read error
    }
    const relative = path.relative(this.realRoot, real);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      this.counters.outsideFolder++;
      return null;
    }
    return real;
  }

  planFor(href) {
    this.pageLinks++;
    const file = this.fileFor(href);
    if (file === null) return null;
    let data;
    try {
      data = this.readStylesheet(file);
    } catch {
      data = null;
    }
    if (data === null || data === undefined || data.length === 0) {
      if (data === null || data === undefined) {
        this.counters.readErrors++;
        this.lastUnreadable = { href, file };
      }
      return null;
    }
    if (typeof data !== 'string' && !Buffer.isBuffer(data)) {
      throw invalidType("readStylesheet's result", 'a string, a Buffer or null', data);
    }
    const known = this.sources.get(file);
    if (known && known.data === data) {
      if (known.plan) this.pagePlans++;
      return known.plan ? known.plan.handle : null;
    }
    const key = this.keyOf(data);
    let plan = this.plans.peek(key);
    if (plan === undefined && this.refused.has(key)) {
      plan = null;
    } else if (plan === undefined && this.uncompiled !== null) {
      // deferring: the caller compiles it on libuv's pool (compileAll) and runs the page again
      this.uncompiled.push({ key, data });
      return null;
    } else if (plan === undefined) {
      plan = this.addPlan(key, native.criticalCssCompile(data));
    }
    this.sources.set(file, { data, plan });
    if (plan) this.pagePlans++;
    return plan ? plan.handle : null;
  }

  /** The key a stylesheet's plan is kept under: its content's SHA-256. */
  keyOf(data) {
    return crypto.createHash('sha256').update(data).digest('base64');
  }

  // Keeps what criticalCssCompile(Async) answered for the stylesheet of content hash `key`: the
  // plan, or null (a stylesheet the engine refuses, remembered so it is not compiled again).
  addPlan(key, compiled) {
    if (typeof compiled === 'string') {
      this.counters.compileErrors++;
      this.refused.set(key, true);
      return null;
    }
    this.counters.compiled++;
    const plan = { handle: compiled[0], bytes: compiled[1], rules: compiled[2] };
    this.plans.set(key, plan);
    return plan;
  }

  /**
   * Runs fn() with the stylesheets that have no plan yet not compiled but noted (their pages come
   * out without their CSS: the caller compiles them with compileAll and runs the page again).
   */
  deferCompiles(fn) {
    const previous = this.uncompiled;
    this.uncompiled = [];
    try {
      const result = fn();
      return { result, uncompiled: this.uncompiled };
    } finally {
      this.uncompiled = previous;
    }
  }

  /**
   * Compiles the stylesheets deferCompiles noted, on libuv's pool (a large stylesheet takes
   * milliseconds, which the event loop must not wait for); the same content compiles once,
   * however many pages ask for it meanwhile. Resolves when every one is kept (or refused).
   */
  compileAll(uncompiled) {
    return Promise.all(
      uncompiled.map(({ key, data }) => {
        if (this.plans.has(key) || this.refused.has(key)) return undefined;
        let pending = this.compiling.get(key);
        if (pending === undefined) {
          const bytes = typeof data === 'string' ? Buffer.from(data) : data;
          pending = new Promise((resolve) => {
            native.criticalCssCompileAsync(bytes, (err, compiled) => {
              this.compiling.delete(key);
              if (!err && !this.plans.has(key)) this.addPlan(key, compiled);
              resolve();
            });
          });
          this.compiling.set(key, pending);
        }
        return pending;
      }),
    );
  }

  process(html) {
    const isString = typeof html === 'string';
    if (!isString && !Buffer.isBuffer(html)) {
      throw invalidType('html', 'a string or a Buffer', html);
    }
    this.counters.pages++;
    this.pageLinks = 0;
    this.pagePlans = 0;
    let out;
    try {
      // One native pass: the page is parsed once, and each stylesheet link beasties would fetch
      // is resolved to its plan through this.resolve while the page is processed.
      out = native.criticalCssInline(html, this.resolve, this.flags);
    } catch (err) {
      if (err instanceof TypeError && /readStylesheet/.test(err.message)) throw err;
      return this.skip(html, err && err.message);
    }
    if (typeof out === 'string' || Buffer.isBuffer(out)) {
      if (this.pagePlans > 0) this.counters.inlined++;
      else if (this.pageLinks > 0) this.counters.unstyled++;
      return out;
    }
    if (out && out.overBound) this.counters.overBound++;
    return this.skip(html, out && out.skipped);
  }

  skip(html, reason) {
    this.counters.skipped++;
    this.lastSkipReason = String(reason || '');
    return html;
  }

  stats() {
    let planBytes = 0;
    let rules = 0;
    for (const plan of this.plans.values()) {
      planBytes += plan.bytes;
      rules += plan.rules;
    }
    return { plans: this.plans.size, planBytes, rules, ...this.counters, lastSkipReason: this.lastSkipReason };
  }
}

module.exports = { CriticalCssEngine };
