'use strict';
// Static assets as dictionaries for their own later versions (RFC 9842's other main use): a file
// with a content hash in its name (main-81bd0e.js, styles.3f2a9c1d.css) is offered with
// `Use-As-Dictionary: match="<dir>/main-*.js", match-dest=("script")`; the browser keeps it, and
// when the next deploy's main-c04f7a.js is asked for with that file's SHA-256 in
// Available-Dictionary, the answer is a dcz delta against it: only what changed travels.
//
// Remembered: the files offered (their bytes, which the file cache holds anyway, and their
// SHA-256, once per file version), at most `maxEntries` and `maxBytes`, oldest out first; a
// prepared dictionary is made only for a file a request names. Only files this middleware served
// are ever dictionaries, so a hash a client sends can only pick one of them. A large file's hash
// and prepared dictionary are made on libuv's pool: until they are ready, its requests get the
// usual answer.
const crypto = require('crypto');
const dcz = require('./dcz');
const { DczDictionary, PREPARE_ON_THREAD_LIMIT } = dcz;
const { invalidType } = require('../validate');
const { ownOptions } = require('../options');
const { addSource } = require('../stat-sources');
const { BoundedLru } = require('../bounded/lru');

const HASHED_NAME = /^(.*?[-.])([0-9A-Za-z_]{6,})((?:\.[0-9A-Za-z]+)+)$/;
// characters a URLPattern reads literally in a pathname (no ( ) * + ? : { } \)
const PLAIN_PATH = /^[A-Za-z0-9/_.~-]+$/;
const AVAILABLE_DICTIONARY_LENGTH = 46;
const DESTINATIONS = { '.js': 'script', '.mjs': 'script', '.css': 'style' };
const PENDING = ''; // in `hashes`: the file's hash is being computed
const subtle = (globalThis.crypto && globalThis.crypto.subtle) || crypto.webcrypto.subtle;

// every name a static middleware's options.dictionary knows (lib/options.js refuses others)
const ASSET_DICTIONARY_OPTIONS = ['maxEntries', 'maxBytes', 'level'];

class AssetDictionaries {
  /**
   * Null when off (or where libzstd is missing); `true` or { maxEntries, maxBytes, level }.
   * `name`: the adapter, the `name` label of its metrics (static_asset_dictionary).
   */
  static from(option, name = 'static') {
    if (option === undefined || option === false || option === null) return null;
    if (option !== true && typeof option !== 'object')
      throw invalidType('options.dictionary', 'a boolean or an object', option);
    if (option !== true) ownOptions(option, ASSET_DICTIONARY_OPTIONS, `${name}'s options.dictionary`);
    return dcz.available ? new AssetDictionaries(option === true ? {} : option, name) : null;
  }

  constructor({ maxEntries = 64, maxBytes = 32 * 1024 * 1024, level = 3 } = {}, name = 'static') {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.level = level;
    // `:base64:` -> { body, dictionary }, first in first out (looked up with peek), by body bytes
    this.byHash = new BoundedLru({ maxEntries, maxBytes });
    this.hashes = new WeakMap(); // body -> `:base64:` (a file version's hash, computed once)
    this.counts = { offered: 0, hits: 0, bytesSaved: 0 };
    addSource('static_asset_dictionary', name, (assets) => assets.stats(), {
      owner: this,
      counters: ['offered', 'bytesSaved'],
    });
  }

  /**
   * The Use-As-Dictionary value for a file served at `pathname` with `body`, or undefined when
   * its name carries no content hash; the file is remembered as a dictionary.
   */
  offer(pathname, body) {
    const slash = pathname.lastIndexOf('/');
    const match = HASHED_NAME.exec(pathname.slice(slash + 1));
    if (match === null || !/[0-9]/.test(match[2]) || !PLAIN_PATH.test(pathname)) return undefined;
    const hash = this.hashes.get(body);
    if (hash === undefined) this.hashOf(body);
    else if (hash !== PENDING) this.remember(hash, body);
    this.counts.offered++;
    const pattern = `${pathname.slice(0, slash + 1)}${match[1]}*${match[3]}`;
    const destination = DESTINATIONS[match[3].slice(match[3].lastIndexOf('.'))];
    return `match="${pattern}"${destination ? `, match-dest=("${destination}")` : ''}`;
  }

  // A file version's SHA-256, once: a small file's now, a large one's on libuv's pool (the file
  // is a dictionary only for requests that come after it anyway).
  hashOf(body) {
    if (body.length <= PREPARE_ON_THREAD_LIMIT) {
      const hash = `:${crypto.createHash('sha256').update(body).digest('base64')}:`;
      this.hashes.set(body, hash);
      this.remember(hash, body);
      return;
    }
    this.hashes.set(body, PENDING);
    subtle.digest('SHA-256', body).then(
      (digest) => {
        const hash = `:${Buffer.from(digest).toString('base64')}:`;
        this.hashes.set(body, hash);
        this.remember(hash, body);
      },
      () => this.hashes.delete(body),
    );
  }

  remember(hash, body) {
    if (this.byHash.has(hash)) return;
    this.byHash.set(hash, { body, dictionary: null, preparing: false }, body.length);
  }

  /**
   * The dictionary a request names (dcz accepted), or null (also while a large one is being
   * prepared). Never throws on hostile headers.
   */
  choose(acceptEncoding, availableDictionary, acceptsDcz) {
    if (typeof availableDictionary !== 'string' || availableDictionary.length !== AVAILABLE_DICTIONARY_LENGTH)
      return null;
    const entry = this.byHash.peek(availableDictionary);
    if (entry === undefined || !acceptsDcz(acceptEncoding)) return null;
    if (entry.dictionary === null && !entry.preparing) {
      const options = { level: this.level, method: 'asset' };
      if (entry.body.length <= PREPARE_ON_THREAD_LIMIT) {
        entry.dictionary = new DczDictionary(entry.body, options);
      } else {
        entry.preparing = true;
        DczDictionary.prepare(entry.body, options, (err, dictionary) => {
          entry.preparing = false;
          if (!err) entry.dictionary = dictionary;
        });
      }
    }
    return entry.dictionary;
  }

  record(originalLength, encodedLength) {
    this.counts.hits++;
    this.counts.bytesSaved += originalLength - encodedLength;
  }

  stats() {
    return { ...this.counts, entries: this.byHash.size, bytes: this.byHash.bytes };
  }
}

module.exports = { AssetDictionaries };
