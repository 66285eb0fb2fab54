'use strict';
// The pages already inlined, by content: a prerendered page (from serveStatic, or the one
// AngularNodeAppEngine keeps in memory) is the same bytes on every request, so it is processed
// once and its result sent again. The key is the body's length and CRC-32 (one native pass,
// far cheaper than the engine); a hit compares the whole body, so two pages that share a CRC
// never get each other's result. Stylesheet changes invalidate everything: the memo is cleared
// when the file cache's generation moves.
//
// Admission: a body that shows it is a stored file (a Last-Modified or a strong ETag) is kept at
// once; any other is kept only when seen a second time lately, so that pages rendered per user
// (each distinct) pass through without evicting the ones that repeat. Bounded by bytes (inputs
// and outputs) and by entries, least recently used first.
const { crc32 } = require('../etag');
const { BoundedLru } = require('../bounded/lru');

class PageMemo {
  constructor({ maxBytes, maxEntries }) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    // key -> { input, output }, sized by both; its admission list holds the bodies seen once lately
    this.entries = new BoundedLru({ maxBytes, maxEntries });
    this.generation = -1;
    this.counts = { memoHits: 0, memoStores: 0 };
  }

  /** A key for `body` (a Buffer) under the stylesheets' `generation`, and its stored output if
   *  any; `crcOf()` gives the body's CRC-32 when the caller has it. */
  find(body, generation, crcOf = undefined) {
    if (generation !== this.generation) {
      this.clear();
      this.generation = generation;
    }
    if (this.maxEntries === 0 || body.length * 2 > this.maxBytes) return { key: null, output: undefined };
    const key = `${body.length}:${crcOf === undefined ? crc32(body) : crcOf()}`;
    const entry = this.entries.peek(key);
    if (entry !== undefined && entry.input.equals(body)) {
      this.entries.get(key); // marks it used
      this.counts.memoHits++;
      return { key, output: entry.output };
    }
    return { key, output: undefined };
  }

  /** Keeps `output` for `input` under `key` (from find) when admitted; `stored`: a file's body. */
  offer(key, input, output, stored, generation) {
    if (key === null || generation !== this.generation) return;
    if (!stored && !this.entries.sighted(key)) return;
    const size = input.length + output.length;
    if (!this.entries.fits(size)) {
      this.entries.delete(key);
      return;
    }
    // copies: the caller's Buffers may be reused or point into memory the memo does not own
    this.entries.set(key, { input: Buffer.from(input), output: Buffer.from(output) }, size);
    this.counts.memoStores++;
  }

  clear() {
    this.entries.clear();
  }

  stats() {
    return {
      memoPages: this.entries.size,
      memoBytes: this.entries.bytes,
      ...this.counts,
      memoEvictions: this.entries.evictions,
    };
  }
}

module.exports = { PageMemo };
