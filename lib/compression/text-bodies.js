'use strict';
// The UTF-8 bytes and CRC-32 of string bodies that repeat, found by the string itself.
//
// Koa (`ctx.body = html`) hands the compression middleware a string, and the content cache is
// keyed by bytes: every response encoded the whole page into a new Buffer (a copy as large as
// the page, its allocation, and the garbage collection that external memory feeds) and took its
// CRC-32 before the cache could answer, work the same app without compression leaves to the
// socket write. A string seen before is found here first. A Map keyed by the string costs little:
// V8 hashes a string longer than 16,383 characters by its length alone, so a lookup is a pointer
// compare for the same string object (a page held by the app or a render cache) and a content
// compare for an equal one (a page rendered again). The bytes remembered are the content cache's
// own stored copy where it has one (ContentCache.originalOf), so its hit on them is an identity
// check; other bytes it still compares with its stored original before answering.
//
// Only strings whose compressed form was a content-cache hit are remembered (unique pages never
// are), at most MAX_ENTRIES of them and MAX_CHARS characters in all, oldest out first: the memo
// holds the strings alive (V8's heap) and their bytes (outside it). At most MAX_SAME_LENGTH of
// one length: strings of one length share the hash, so a lookup compares the string with each
// of them up to its first difference (pages of a site share their first kilobytes), and a page
// not remembered must not pay dozens of such compares before its own encoding.
const { BoundedLru } = require('../bounded/lru');

const MAX_ENTRIES = 64;
const MAX_CHARS = 4 * 1024 * 1024;
const MAX_SAME_LENGTH = 4;

class TextBodies {
  constructor({ maxEntries = MAX_ENTRIES, maxChars = MAX_CHARS, maxSameLength = MAX_SAME_LENGTH } = {}) {
    this.maxChars = maxChars;
    this.maxSameLength = maxSameLength;
    // text -> { bytes, crc }, weighed by its length, first in first out (looked up with peek)
    this.texts = new BoundedLru({ maxEntries, maxBytes: maxChars, onEvict: (text) => this.unlist(text) });
    this.byLength = new Map(); // text.length -> the remembered texts of that length, oldest first
  }

  get size() {
    return this.texts.size;
  }

  /** { bytes, crc } of a string remembered, or undefined. */
  get(text) {
    return this.texts.peek(text);
  }

  remember(text, bytes, crc) {
    if (text.length > this.maxChars / 8 || this.texts.has(text)) return;
    let same = this.byLength.get(text.length);
    if (same !== undefined && same.length >= this.maxSameLength) {
      this.texts.delete(same[0]);
      this.unlist(same[0]);
    }
    if (!this.texts.set(text, { bytes, crc }, text.length)) return;
    same = this.byLength.get(text.length);
    if (same === undefined) this.byLength.set(text.length, [text]);
    else same.push(text);
  }

  // Drops `text` from its length's list (it has left `texts`); the oldest goes first, as a rule.
  unlist(text) {
    const same = this.byLength.get(text.length);
    if (same.length === 1) this.byLength.delete(text.length);
    else if (same[0] === text) same.shift();
    else same.splice(same.indexOf(text), 1);
  }
}

// One memo per content cache, made when first used (bodies are the same bytes whatever the encoder).
const memos = new WeakMap();

/** The memo of string bodies for `cache` (a ContentCache). */
function textBodiesOf(cache) {
  let memo = memos.get(cache);
  if (memo === undefined) {
    memo = new TextBodies();
    memos.set(cache, memo);
  }
  return memo;
}

module.exports = { TextBodies, textBodiesOf, MAX_ENTRIES, MAX_CHARS, MAX_SAME_LENGTH };
