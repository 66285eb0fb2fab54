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

class PageMemo {
  constructor({ maxBytes, maxEntries }) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    this.entries = new Map(); // key -> { input, output }
    this.seen = new Map(); // key -> true, bodies seen once lately (insertion order, bounded)
    this.bytes = 0;
    this.generation = -1;
    this.counts = { memoHits: 0, memoStores: 0, memoEvictions: 0 };
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
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.input.equals(body)) {
      this.entries.delete(key); // most recently used last
      this.entries.set(key, entry);
      this.counts.memoHits++;
      return { key, output: entry.output };
    }
    return { key, output: undefined };
  }

  /** Keeps `output` for `input` under `key` (from find) when admitted; `stored`: a file's body. */
  offer(key, input, output, stored, generation) {
    if (key === null || generation !== this.generation) return;
    if (!stored && !this.seen.has(key)) {
      this.seen.set(key, true);
      if (this.seen.size > this.maxEntries * 4) this.seen.delete(this.seen.keys().next().value);
      return;
    }
    this.seen.delete(key);
    const previous = this.entries.get(key);
    if (previous !== undefined) this.remove(key, previous);
    const size = input.length + output.length;
    if (size > this.maxBytes) return;
    // copies: the caller's Buffers may be reused or point into memory the memo does not own
    const entry = { input: Buffer.from(input), output: Buffer.from(output) };
    this.entries.set(key, entry);
    this.bytes += size;
    this.counts.memoStores++;
    while (this.bytes > this.maxBytes || this.entries.size > this.maxEntries) {
      const [oldest, old] = this.entries.entries().next().value;
      this.remove(oldest, old);
      this.counts.memoEvictions++;
    }
  }

  remove(key, entry) {
    this.entries.delete(key);
    this.bytes -= entry.input.length + entry.output.length;
  }

  clear() {
    this.entries.clear();
    this.seen.clear();
    this.bytes = 0;
  }

  stats() {
    return { memoPages: this.entries.size, memoBytes: this.bytes, ...this.counts };
  }
}

module.exports = { PageMemo };
