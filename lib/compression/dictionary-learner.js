'use strict';
// Learns a site's compression dictionary from the HTML it sends, and relearns it when the pages
// drift. The dictionary is served to every visitor, so only responses the sharing rule at its
// strictest lets through are ever sampled (lib/http/shareable.js, the rule the response cache
// uses too): a GET without Cookie, Authorization or a body, answered 200 with HTML and a positive
// shared lifetime (s-maxage, max-age or Expires; never private, no-store or no-cache), no
// Set-Cookie, no Vary on *, Cookie or Authorization. When in doubt a page is not sampled.
//
// Bounded: at most `maxSamples` pages (one per URL, the newest) and `maxSampleBytes` in all; a
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

/**
 * Whether a response may feed a public dictionary. `getHeader(name)` reads the response's header
 * as it is sent; `requestHeaders` are Node's lower-case request headers.
 */
function isShareable(method, status, requestHeaders, getHeader) {
  if (method !== 'GET' || status !== 200) return false;
  const type = getHeader('content-type');
  if (!isHtmlOrXhtml(type)) return false;
  const headers = {};
  for (const name of RESPONSE_HEADERS) {
    const value = getHeader(name);
    if (value !== undefined) headers[name] = value;
  }
  // The one sharing rule at its strictest (no opt-ins): no Cookie, Authorization or body on the
  // request; a response a shared cache would store and serve without revalidation.
  if (!shareable.mayShare({ method, headers: requestHeaders }, { status, headers }, shareable.STRICTEST)) return false;
  const vary = rules.headerText(headers.vary);
  return vary === undefined || !RISKY_VARY.test(vary);
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
    this.samples = new Map(); // url -> Buffer (a copy), oldest first
    this.sampleBytes = 0;
    this.newSamples = 0;
    this.seen = 0;
    this.building = false;
    this.current = null; // the bytes of the dictionary in use
    this.counts = { sampled: 0, refused: 0, builds: 0, rebuilds: 0, kept: 0, buildErrors: 0 };
    this.lastChoice = null;
  }

  /** A response sent whole; copies `body` when it is sampled. */
  offer(method, url, status, requestHeaders, getHeader, body) {
    if (body.length < MIN_SAMPLE_BYTES || body.length > MAX_PAGE_BYTES) return;
    if (this.current !== null && ++this.seen % this.sampleEvery !== 0) return;
    if (this.current === null && this.samples.has(url)) return;
    if (!isShareable(method, status, requestHeaders, getHeader)) {
      this.counts.refused++;
      return;
    }
    this.add(url, body);
    if (this.building) return;
    if (this.current === null) {
      if (this.samples.size >= this.minPages) this.build();
    } else if (this.newSamples >= this.rebuildAfter && Date.now() - this.lastBuild >= this.rebuildInterval) {
      this.build();
    }
  }

  add(url, body) {
    const previous = this.samples.get(url);
    if (previous !== undefined) {
      this.samples.delete(url);
      this.sampleBytes -= previous.length;
    }
    const copy = Buffer.from(body); // the caller's buffer may be reused once it is sent
    this.samples.set(url, copy);
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
    return { ...this.counts, samples: this.samples.size, sampleBytes: this.sampleBytes, building: this.building };
  }
}

module.exports = { DictionaryLearner, isShareable };
