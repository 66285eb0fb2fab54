'use strict';
// CriticalCss: one engine (lib/critical-css/engine.js: the stylesheet plans, the page scan) with
// what the entry points around it need: stylesheets read through a FileCache, the memo of pages
// already inlined, the counters (stats(), and ssr-native/metrics as kind `critical_css`), and
// the two ways of running a page: now (inlineCriticalCss, synchronous) or, for the middlewares,
// without ever blocking on the disk or on a compilation (a stylesheet not in memory yet is loaded,
// and one with no plan yet compiled, on libuv's pool, and the page processed again).
//
// Whatever happens, a page comes back: the engine's own answer, or the page as it was when the
// engine refuses it or throws (counted as `errors`, never thrown to the caller).
const fs = require('fs');
const path = require('path');
const { CriticalCssEngine } = require('./engine');
const { StylesheetSource } = require('./stylesheets');
const { PageMemo } = require('./page-memo');
const { FileCache } = require('../files/file-cache');
const { addSource } = require('../stat-sources');
const { invalidType, outOfRange } = require('../validate');
const { ownOptions } = require('../options');
const { BoundedLru } = require('../bounded/lru');

// Angular's InlineCriticalCssProcessor (@angular/ssr): beasties with these options. `preload`
// follows the beasties version (engine.js: 'media' for Angular 21, 'media-script' for 22.2).
const ANGULAR_DEFAULTS = {
  publicPath: '',
  minify: false,
  preload: undefined,
  noscriptFallback: true,
  inlineFonts: true,
  pruneSource: false,
  reduceInlineStyles: false,
  mergeStylesheets: false,
};
const ENGINE_OPTIONS = [...Object.keys(ANGULAR_DEFAULTS), 'maxPlans', 'beasties'];
const NUMBERS = { maxBuffer: 2 * 1024 * 1024, memoBytes: 16 * 1024 * 1024, memoPages: 256 };
// every name criticalCss(options) knows (lib/options.js refuses others)
const CRITICAL_CSS_OPTIONS = [
  ...ENGINE_OPTIONS,
  ...Object.keys(NUMBERS),
  'browserDistFolder',
  'path',
  'cache',
  'name',
  'warm',
];
const MAX_HEADS = 1024;
// the engine's skip reason for a rendered page Angular's inliner already ran on
// (src/core/critical_css_page_run.cc kInlinedByAngular)
const ANGULAR_INLINED = 'a page Angular already inlined';
const COUNTERS = [
  'pages',
  'inlined',
  'unstyled',
  'skipped',
  'overBound',
  'compiled',
  'compileErrors',
  'readErrors',
  'outsideFolder',
  'errors',
  'memoHits',
  'memoStores',
  'memoEvictions',
  'stylesheetSyncReads',
  'stylesheetMisses',
  'stylesheetLoads',
  'passedThrough',
  'tooLarge',
];

class CriticalCss {
  /**
   * options: { browserDistFolder (or path): the folder the pages' stylesheet hrefs resolve in,
   * Angular's beasties options (publicPath, minify, preload, ...), maxPlans, maxBuffer,
   * memoBytes, memoPages, cache: a FileCache to share, name: the metrics label, warm: load the
   * folder's top-level stylesheets at once (default true) }
   */
  /** The engine a middleware was given, or a new one for its options (the adapters' one reading). */
  static of(options) {
    return options instanceof CriticalCss ? options : new CriticalCss(options);
  }

  constructor(options) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    ownOptions(options, CRITICAL_CSS_OPTIONS, 'criticalCss(options)');
    const folder = options.browserDistFolder !== undefined ? options.browserDistFolder : options.path;
    if (typeof folder !== 'string' || folder === '') {
      throw invalidType('options.browserDistFolder', 'a non-empty string (the folder of the stylesheets)', folder);
    }
    this.path = path.resolve(folder);
    for (const [name, fallback] of Object.entries(NUMBERS)) {
      const value = options[name] === undefined ? fallback : options[name];
      if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
      if (value < 0) throw outOfRange(`options.${name}`, '>= 0', value);
      this[name] = value;
    }
    if (options.cache !== undefined && !(options.cache instanceof FileCache)) {
      throw invalidType('options.cache', 'a FileCache', options.cache);
    }
    this.ownCache = options.cache === undefined;
    this.cache = options.cache || new FileCache({ root: this.path, name: `critical-css:${this.path}` });
    this.source = new StylesheetSource(this.cache);
    // serving, a page already inlined goes out as it came: a prerendered one as Angular sends
    // it; a rendered one was inlined by Angular's own inliner (inlineCritical left on), and a
    // second pass would inline twice or, under beasties 0.5, leave its stylesheet at "print"
    const engineOptions = {
      ...ANGULAR_DEFAULTS,
      path: this.path,
      readStylesheet: this.source.read,
      leaveInlinedPrerendered: true,
      leaveInlined: true,
    };
    for (const name of ENGINE_OPTIONS) if (options[name] !== undefined) engineOptions[name] = options[name];
    this.engine = new CriticalCssEngine(engineOptions);
    this.memo = new PageMemo({ maxBytes: this.memoBytes, maxEntries: this.memoPages });
    // a route's tag of a page -> { tag, length } of the inlined page a GET was sent (for HEAD)
    this.heads = new BoundedLru({ maxEntries: MAX_HEADS }); // routeTag -> { tag, length }, first in first out
    this.headsGeneration = -1;
    this.counts = { errors: 0, stylesheetLoads: 0, passedThrough: 0, tooLarge: 0 };
    this.closed = false;
    this.warnedUnreadable = false;
    this.warnedAngularInlined = false;
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
      throw invalidType('options.name', 'a non-empty string', options.name);
    }
    this.metrics = addSource('critical_css', options.name || this.path, statsOf, { owner: this, counters: COUNTERS });
    if (options.warm !== false) this.warm();
  }

  /**
   * Loads the stylesheets at the top of the folder (where Angular writes them) and compiles their
   * plans, both on libuv's pool, ahead of the first page (which would otherwise wait for them).
   */
  warm() {
    fs.promises
      .readdir(this.path)
      .then(async (names) => {
        const sheets = names.filter((n) => n.endsWith('.css')).map((n) => path.join(this.path, n));
        if (this.closed || sheets.length === 0) return;
        await this.source.load(sheets);
        if (this.closed) return;
        const uncompiled = [];
        for (const sheet of sheets.slice(0, this.engine.maxPlans)) {
          // from memory only: a stylesheet the cache did not keep is left to the first page
          const { result: data } = this.source.collect(() => this.source.read(sheet));
          if (data) uncompiled.push({ key: this.engine.keyOf(data), data });
        }
        await this.engine.compileAll(uncompiled);
      })
      .catch(() => {});
  }

  /** The page with its critical CSS inlined, now (a stylesheet not in memory is read synchronously). */
  processSync(html) {
    return this.warnOnce(this.run(html));
  }

  /**
   * The page with its critical CSS inlined: the value, or a Promise of it when a stylesheet had to
   * be loaded first. `body` is a Buffer; `stored`: it is a file's body (see page-memo.js);
   * `crcOf()`, when given, its CRC-32 as the held response already knows or computes it once.
   */
  processBody(body, stored, crcOf = undefined) {
    if (body.length > this.maxBuffer) {
      this.counts.tooLarge++;
      return body;
    }
    const generation = this.cache.generation();
    const { key, output } = this.memo.find(body, generation, crcOf);
    if (output !== undefined) return output;
    const { result, missing, uncompiled } = this.attempt(body);
    if (missing.length === 0 && uncompiled.length === 0) {
      this.memo.offer(key, body, result, stored, generation);
      return this.warnOnce(result);
    }
    return this.prepare(body, missing, uncompiled).then(() => {
      // anything still not in memory (too large for the cache, gone) is read synchronously, once
      const inlined = this.run(body);
      this.memo.offer(key, body, inlined, stored, generation);
      return this.warnOnce(inlined);
    });
  }

  // Runs the page, noting what it needs that is not ready: stylesheets not in memory, and
  // stylesheets with no plan compiled (the result then lacks their CSS, and is not used: the
  // engine's page counters are put back, so each page counts once).
  attempt(body) {
    const counters = { ...this.engine.counters };
    let uncompiled;
    const { result, missing } = this.source.collect(() => {
      const run = this.engine.deferCompiles(() => this.run(body));
      uncompiled = run.uncompiled;
      return run.result;
    });
    if (missing.length > 0 || uncompiled.length > 0) Object.assign(this.engine.counters, counters);
    return { result, missing, uncompiled };
  }

  // Loads the missing stylesheets and compiles the plans, both on libuv's pool.
  async prepare(body, missing, uncompiled) {
    if (missing.length > 0) {
      await this.source.load(missing);
      this.counts.stylesheetLoads += missing.length;
      // the stylesheets just loaded have no plan yet either
      uncompiled = uncompiled.concat(this.attempt(body).uncompiled);
    }
    await this.engine.compileAll(uncompiled);
  }

  run(html) {
    if (this.closed) return html;
    try {
      const out = this.engine.process(html);
      return out === undefined || out === null ? html : out;
    } catch {
      this.counts.errors++;
      return html;
    }
  }

  // The mistakes that would otherwise go without a word, each warned once per instance; the page
  // (`result`) is returned as it is.
  warnOnce(result) {
    this.warnIfUnreadable();
    this.warnIfAngularInlined();
    return result;
  }

  // Angular's own inliner ran on a rendered page (`inlineCritical` left on): the page is sent
  // as Angular inlined it (the engine skipped it), and the user is told how to hand the work over.
  warnIfAngularInlined() {
    if (this.warnedAngularInlined || this.engine.lastSkipReason !== ANGULAR_INLINED) return;
    this.warnedAngularInlined = true;
    process.emitWarning(
      'critical CSS: a page came already inlined by Angular (its own critical CSS inliner is on), so it ' +
        'is sent as Angular inlined it. Set "inlineCritical": false in angular.json ' +
        '(architect.build.configurations.production.optimization.styles.inlineCritical) to let ' +
        'criticalCss() do the inlining.',
      { code: 'SSR_NATIVE_CRITICAL_CSS_ANGULAR_INLINED', type: 'Warning' },
    );
  }

  // One warning per instance, the first time a page links a stylesheet the folder does not hold
  // (a wrong browserDistFolder inlines nothing otherwise without a word). Counted in readErrors.
  warnIfUnreadable() {
    const missing = this.engine.lastUnreadable;
    if (missing !== null && !this.warnedUnreadable && this.engine.counters.readErrors > 0) {
      this.warnedUnreadable = true;
      process.emitWarning(
        `critical CSS: the stylesheet ${JSON.stringify(missing.href)} a page links cannot be read from ` +
          `browserDistFolder ${JSON.stringify(this.path)} (${missing.file}); pages are sent without its ` +
          'critical CSS. Is browserDistFolder the folder holding the built stylesheets?',
        { code: 'SSR_NATIVE_CRITICAL_CSS_UNREADABLE', type: 'Warning' },
      );
    }
  }

  /** Notes that the page the route tagged `routeTag` went out inlined as `tag`, `length` bytes. */
  rememberHead(routeTag, tag, length) {
    if (this.headsGeneration !== this.cache.generation()) {
      this.heads.clear();
      this.headsGeneration = this.cache.generation();
    }
    this.heads.set(routeTag, { tag, length });
  }

  /** { tag, length } of the inlined page whose route tag is `routeTag`, if sent lately. */
  headFor(routeTag) {
    if (this.headsGeneration !== this.cache.generation()) return undefined;
    return this.heads.peek(routeTag);
  }

  stats() {
    const engine = this.engine.stats();
    const out = {};
    for (const [name, value] of Object.entries(engine)) if (typeof value === 'number') out[name] = value;
    return { ...out, ...this.counts, ...this.source.counts, ...this.memo.stats() };
  }

  /** Frees the memo and the file cache it made (not one passed in); pages then go out unchanged. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.memo.clear();
    this.metrics.remove();
    if (typeof this.engine.close === 'function') this.engine.close();
    if (this.ownCache) this.cache.close();
  }
}

function statsOf(criticalCss) {
  return criticalCss.closed ? null : criticalCss.stats();
}

module.exports = { CriticalCss, ANGULAR_DEFAULTS };
