'use strict';
// Learns a site's compression dictionary from the HTML it sends, and relearns it when the pages
// drift. The dictionary is served to every visitor, so only responses the sharing rule at its
// strictest lets through are ever sampled (lib/http/shareable.js, the rule the response cache
// uses too): a GET without Cookie, Authorization or a body, answered 200 with HTML and a positive
// shared lifetime (s-maxage, max-age or Expires; never private, no-store or no-cache), no
// Set-Cookie, no Vary on *, Cookie or Authorization. When in doubt a page is not sampled. It is
// offered once the response has ended, with the head it was sent with (dictionary-transport.js).
//
// Sampled across many pages, not the first few requests: one sample per path (the query is not
// part of it), and no dictionary before `minPages` (at least 32) distinct paths were sampled.
// The "common parts" candidate keeps only what half of the pages hold, so what one crafted page
// reflects does not get in that way (dictionary_builder.h).
//
// Bounded: at most `maxSamples` pages (one per path, the newest) and `maxSampleBytes` in all; a
// build copies them to libuv's pool once (zstdChooseDictionary), where both candidates (zstd's
// training and the pages' common parts) are built and measured on held-out pages, and the smaller
// wins. Once a dictionary exists, one shareable page in `sampleEvery` is sampled, and after
// `rebuildAfter` new samples, at most once per `rebuildInterval` ms (a build costs a pool thread
// far more than a page does: docs/compression.md), the build runs again; a candidate replaces
// the dictionary only when it makes the held-out pages at least 10% smaller than the current one
// does (a new hash then).
const native = require('../native');
const rules = require('../http/cache-rules');
const { isHtmlOrXhtml } = require('../http/html');
const shareable = require('../http/shareable');

const RISKY_VARY = /(?:^|,)\s*(?:cookie|authorization|\*)\s*(?:,|$)/i;
const RESPONSE_HEADERS = ['cache-control', 'set-cookie', 'vary', 'content-range', 'expires', 'date'];
const MIN_SAMPLE_BYTES = 256;
const MAX_PAGE_BYTES = 512 * 1024;
const IMPROVEMENT = 0.9;
// refused responses before the warning that nothing can be learned
const NOTHING_TO_LEARN_AFTER = 256;
// learnable responses with no dictionary yet before the warning that the site shows too few
// distinct pages (a small site never reaches minPages: its dictionary is built from its files).
// SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER (internal, for tests) sets another count.
const FEW_PAGES_AFTER = 500;

/**
 * Why a response may not be shared with other visitors (the dictionary's content, or a body
 * compressed against a dictionary they chose), or undefined. `getHeader(name)` reads the
 * response's header as it is sent; `requestHeaders` are Node's lower-case request headers.
 */
function sharingRefusal(method, status, requestHeaders, getHeader) {
  const headers = {};
  for (const name of RESPONSE_HEADERS) {
    const value = getHeader(name);
    if (value !== undefined) headers[name] = value;
  }
  // The one sharing rule at its strictest (no opt-ins): no Cookie, Authorization or body on the
  // request; a response a shared cache would store and serve without revalidation.
  const why = shareable.whyNotShareable({ method, headers: requestHeaders }, { status, headers }, shareable.STRICTEST);
  if (why !== undefined) return why;
  const vary = rules.headerText(headers.vary);
  return vary !== undefined && RISKY_VARY.test(vary) ? 'vary' : undefined;
}

/** Why a response may not feed the public dictionary, or undefined: a shareable 200 GET of HTML. */
function whyNotLearnable(method, status, requestHeaders, getHeader) {
  if (method !== 'GET') return 'method';
  if (status !== 200) return 'status';
  if (!isHtmlOrXhtml(getHeader('content-type'))) return 'type';
  return sharingRefusal(method, status, requestHeaders, getHeader);
}

// The path a sample is kept under: the query is not part of it, so `?q=` spellings of one page
// count as one page (the newest kept), and a few crafted requests cannot fill the samples.
function pathOf(url) {
  if (typeof url !== 'string') return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

class DictionaryLearner {
  constructor(options, onDictionary) {
    this.capacity = options.maxBytes;
    this.level = options.level;
    this.minPages = options.minPages;
    this.maxSamples = options.maxSamples;
    this.maxSampleBytes = options.maxSampleBytes;
    this.sampleEvery = options.sampleEvery;
    this.rebuildAfter = options.rebuildAfter;
    this.rebuildInterval = options.rebuildInterval;
    this.lastBuild = 0;
    this.onDictionary = onDictionary;
    this.samples = new Map(); // path (no query) -> Buffer (a copy), oldest first
    this.sampleBytes = 0;
    this.newSamples = 0;
    this.seen = 0;
    this.building = false;
    this.current = null; // the bytes of the dictionary in use
    this.counts = { sampled: 0, refused: 0, builds: 0, rebuilds: 0, kept: 0, buildErrors: 0 };
    this.refusedBy = Object.create(null); // reason -> responses refused for it
    this.warned = false;
    this.lastChoice = null;
    this.learnable = 0; // learnable responses offered while there is no dictionary
    this.fewPagesAfter = Number(process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER) || FEW_PAGES_AFTER;
    this.warnedFewPages = false;
  }

  /** A response sent whole; copies `body` when it is sampled. */
  offer(method, url, status, requestHeaders, getHeader, body) {
    if (body.length < MIN_SAMPLE_BYTES || body.length > MAX_PAGE_BYTES) return;
    if (this.current !== null && ++this.seen % this.sampleEvery !== 0) return;
    const path = pathOf(url);
    if (this.current === null && this.samples.has(path)) {
      this.tooFewPages(); // a path sampled before: learnable, and nothing new
      return;
    }
    const why = whyNotLearnable(method, status, requestHeaders, getHeader);
    if (why !== undefined) {
      this.refuse(why);
      return;
    }
    this.add(path, body);
    if (this.building) return;
    if (this.current === null) {
      if (this.samples.size >= this.minPages) this.build();
      else this.tooFewPages();
    } else if (this.newSamples >= this.rebuildAfter && Date.now() - this.lastBuild >= this.rebuildInterval) {
      this.build();
    }
  }

  // Counted by reason; once, when many pages were refused before a dictionary could be built, a
  // warning names the commonest reason (an app that sends no shared lifetime learns nothing).
  refuse(why) {
    this.counts.refused++;
    this.refusedBy[why] = (this.refusedBy[why] || 0) + 1;
    if (this.warned || this.current !== null || this.counts.refused < NOTHING_TO_LEARN_AFTER) return;
    if (this.samples.size >= this.minPages) return;
    this.warned = true;
    const [reason, count] = Object.entries(this.refusedBy).sort((a, b) => b[1] - a[1])[0];
    process.emitWarning(
      `compression's dictionary has nothing to learn: ${this.counts.refused} responses refused ` +
        `(most for "${reason}": ${count}), ${this.samples.size} of ${this.minPages} pages sampled. ` +
        'Only public HTML (a shared lifetime, no Set-Cookie) of requests without Cookie or ' +
        'Authorization is learned; see docs/compression.md, "What the dictionary learns"',
      { code: 'SSR_NATIVE_DICTIONARY_NOTHING_TO_LEARN' },
    );
  }

  // Once, when many learnable responses came and their paths are still fewer than minPages: a
  // small site (a dozen prerendered pages) never gets a dictionary, which would go unsaid.
  tooFewPages() {
    if (this.warnedFewPages || this.samples.size >= this.minPages) return; // a build is due
    if (++this.learnable < this.fewPagesAfter) return;
    this.warnedFewPages = true;
    process.emitWarning(
      `compression's dictionary: ${this.learnable} shareable HTML responses came from only ` +
        `${this.samples.size} distinct paths, and a dictionary is learned from at least ${this.minPages}, ` +
        'so none is built and no response gets dcz. For a small site, build one from its pages: ' +
        '`npx ssr-native-dictionary dist/<app>/browser -o site.dict`, then pass ' +
        '`dictionary: \'site.dict\'` (docs/compression.md, "A dictionary for a small site")',
      { code: 'SSR_NATIVE_DICTIONARY_TOO_FEW_PAGES' },
    );
  }

  add(path, body) {
    const previous = this.samples.get(path);
    if (previous !== undefined) {
      this.samples.delete(path);
      this.sampleBytes -= previous.length;
    }
    const copy = Buffer.from(body); // the caller's buffer may be reused once it is sent
    this.samples.set(path, copy);
    this.sampleBytes += copy.length;
    this.newSamples++;
    this.counts.sampled++;
    for (const [oldest, bytes] of this.samples) {
      if (this.samples.size <= this.maxSamples && this.sampleBytes <= this.maxSampleBytes) break;
      this.samples.delete(oldest);
      this.sampleBytes -= bytes.length;
    }
  }

  build() {
    this.building = true;
    this.newSamples = 0;
    this.lastBuild = Date.now();
    const rebuild = this.current !== null;
    native.zstdChooseDictionary(
      [...this.samples.values()],
      this.capacity,
      this.level,
      this.current,
      IMPROVEMENT,
      (err, choice) => {
        this.building = false;
        if (err) {
          this.counts.buildErrors++;
          return;
        }
        this.lastChoice = {
          method: choice.method,
          trainedBytes: choice.trainedBytes,
          commonBytes: choice.commonBytes,
          currentBytes: choice.currentBytes,
        };
        if (choice.dictionary === null) {
          this.counts.kept++;
          return;
        }
        this.current = choice.dictionary;
        this.counts[rebuild ? 'rebuilds' : 'builds']++;
        this.onDictionary(choice.dictionary, choice.method);
      },
    );
  }

  stats() {
    return {
      ...this.counts,
      refusedBy: { ...this.refusedBy },
      samples: this.samples.size,
      sampleBytes: this.sampleBytes,
      building: this.building,
    };
  }
}

module.exports = { DictionaryLearner, sharingRefusal, whyNotLearnable };
