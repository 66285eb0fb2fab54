'use strict';
// A drop-in for content-type 1.0.5 (what Express 4/5, body-parser, type-is and Koa load):
// `parse` and `format` with the same API, results and TypeError messages, and a bounded cache in
// front of `parse`, so the handful of Content-Type values a server sees on every request are
// parsed once. A cache hit stays in JavaScript; each call returns a fresh object the caller may
// mutate (Express's setCharset does).
const {
  scanJs,
  scanNative,
  ContentType,
  nullPrototypeObject,
  CLASSES,
  QUOTED_TEXT,
  ERROR_MESSAGES,
  isTokenString,
  isTypeString,
} = require('./scan');
const { ParseCache } = require('./parse-cache');
const { ownOptions } = require('../options');
const { invalidType, invalidValue, outOfRange } = require('../validate');
const { joinParameters } = require('./format-trie');

// The package's own expressions, used only where the argument is not a string and its
// coercion rules (ToString on arbitrary values) must be reproduced exactly.
const TYPE_REGEXP = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QUOTE_REGEXP = /([\\"])/g;

const DEFAULT_CACHE_SIZE = 1024;
// Longer headers bypass the cache: they are not the repeated values a cache is for, and the cap
// on entries then also caps the memory (at most cacheSize * ~2 * MAX_CACHED_LENGTH bytes of keys).
const MAX_CACHED_LENGTH = 256;
// Headers with more parameters than this bypass the cache too (unusual, and costly to copy).
const MAX_CACHED_PARAMETERS = 8;

// Which scanner runs on a miss. Measured (bench/http/scenarios/content-type.js and
// docs/content-type.md): for headers of typical length the JavaScript scan is faster, because a
// native call plus reading the string as UTF-16 costs more than scanning it in JIT-compiled
// code; the C++ scan wins on long headers (docs/content-type.md has where). 'auto' (the default)
// scans headers longer than MAX_CACHED_LENGTH natively (they are never cached either), and
// falls back to JavaScript for good if the addon cannot be loaded.
let nativeUnavailable = false;
function scanAuto(header, forFormat) {
  if (header.length > MAX_CACHED_LENGTH && !nativeUnavailable) {
    try {
      return scanNative(header, forFormat);
    } catch (err) {
      if (!err || err.code !== 'ERR_SSR_NATIVE_NOT_BUILT') throw err;
      nativeUnavailable = true;
    }
  }
  return scanJs(header, forFormat);
}
const SCANNERS = { auto: scanAuto, js: scanJs, native: scanNative };
let scan = scanAuto;
const parseCache = new ParseCache(DEFAULT_CACHE_SIZE, 'content-type');
const cache = parseCache.cache;

// A cache entry: the parse result's pieces, never handed out (each hit builds a fresh object).
class Template {
  constructor(result) {
    this.type = result.type;
    this.names = Object.keys(result.parameters);
    this.values = this.names.map((name) => result.parameters[name]);
  }
}

function fromTemplate(template, forFormat) {
  const parameters = nullPrototypeObject(forFormat);
  const { names, values } = template;
  for (let i = 0; i < names.length; i++) parameters[names[i]] = values[i];
  return new ContentType(template.type, parameters);
}

// Admission: a header enters the cache on its second sighting, not its first, so a stream of
// headers that never repeat (multipart boundaries, a hostile client) costs no templates, no
// insertions and no evictions. First sightings are remembered in `seenOnce`, a direct-mapped
// table of header strings (parse-cache.js: 2 x capacity slots, bounded like the cache) indexed by
// the low bits of the sampled hash the cache lookup just computed: one array read and write, and
// `===` makes it exact (a collision only makes a header wait for another sighting).

function parseHeader(header, forFormat) {
  if (cache.capacity === 0) return scanned(header, scan(header, forFormat));
  const template = cache.get(header);
  if (template !== undefined) {
    parseCache.hits++;
    return fromTemplate(template, forFormat);
  }
  const seenOnce = parseCache.seenOnce;
  const slot = cache.lastHash & (seenOnce.length - 1);
  const result = scanned(header, scan(header, forFormat));
  if (header.length > MAX_CACHED_LENGTH) {
    parseCache.bypasses++;
  } else if (seenOnce[slot] !== header) {
    parseCache.misses++;
    seenOnce[slot] = header;
  } else {
    seenOnce[slot] = undefined;
    const entry = new Template(result);
    if (entry.names.length > MAX_CACHED_PARAMETERS) {
      parseCache.bypasses++;
    } else {
      parseCache.misses++;
      parseCache.stores++;
      cache.set(header, entry);
    }
  }
  return result;
}

function scanned(header, result) {
  if (typeof result === 'number') throw new TypeError(ERROR_MESSAGES[result]);
  return result;
}

function getContentType(obj) {
  let header;
  if (typeof obj.getHeader === 'function') {
    header = obj.getHeader('content-type'); // res-like
  } else if (typeof obj.headers === 'object') {
    header = obj.headers && obj.headers['content-type']; // req-like
  }
  if (typeof header !== 'string') throw new TypeError('content-type header is missing from object');
  return header;
}

/**
 * Parse a Content-Type header (a string, or a request's or response's header).
 * @param {string|object} string
 * @returns {{type: string, parameters: object}}
 */
function parse(string) {
  // A string argument is what Express's setCharset passes, right before format(): its result
  // is built for cheap key enumeration. A request or response object is what body-parser, Koa
  // and type-is pass, to read a parameter: its result is built for cheap creation. The two
  // results are indistinguishable from JavaScript (see nullPrototypeObject).
  if (typeof string === 'string' && string !== '') return parseHeader(string, true);
  if (!string) throw new TypeError('argument string is required');
  const header = typeof string === 'object' ? getContentType(string) : string;
  if (typeof header !== 'string') throw new TypeError('argument string is required to be a string');
  return parseHeader(header, false);
}

// The package's qstring: tokens as they are, other text quoted with \ before " and \.
function quoteValue(value) {
  const str = String(value);
  if (isTokenString(str)) return str;
  const n = str.length;
  let escapes = false;
  for (let i = 0; i < n; i++) {
    const code = str.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) {
      escapes = true;
    } else if (code > 255 || (CLASSES[code] & QUOTED_TEXT) === 0) {
      throw new TypeError('invalid parameter value');
    }
  }
  return '"' + (escapes ? str.replace(QUOTE_REGEXP, '\\$1') : str) + '"';
}

// format's cache: a trie of Maps, type -> name1 -> value1 -> name2 -> value2 ... -> FORMATTED ->
// the header. Only strings that passed validation are ever stored, so a type, name or value
// found in the trie needs no validation, and a complete path returns the finished header
// without building it. Stored: string types, names and values of at most
// MAX_FORMAT_PART_LENGTH characters, at most MAX_FORMAT_PARAMETERS parameters. Bounded by
// dropping the whole trie after `formatCapacity` insertions (cacheSize / 2): cheap and rare,
// since the same few objects repeat.
const FORMATTED = Symbol('formatted');
const MAX_FORMAT_PART_LENGTH = 64;
const MAX_FORMAT_PARAMETERS = 4;
let formatRoot = new Map();
let formatInsertions = 0;
let formatCapacity = DEFAULT_CACHE_SIZE / 2;

function formatCacheSet(type, names, values, header) {
  if (formatCapacity === 0 || type.length > MAX_FORMAT_PART_LENGTH) return;
  if (names.length > MAX_FORMAT_PARAMETERS) return;
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    if (typeof value !== 'string' || value.length > MAX_FORMAT_PART_LENGTH) return;
    if (names[i].length > MAX_FORMAT_PART_LENGTH) return;
  }
  if (formatInsertions >= formatCapacity) {
    formatRoot = new Map();
    formatInsertions = 0;
  }
  formatInsertions++;
  let node = formatRoot.get(type);
  if (node === undefined) formatRoot.set(type, (node = new Map()));
  for (let i = 0; i < names.length; i++) {
    for (const key of [names[i], values[i]]) {
      let next = node.get(key);
      if (next === undefined) node.set(key, (next = new Map()));
      node = next;
    }
  }
  node.set(FORMATTED, header);
}

// format for a string type and an object of parameters: the package's steps in the package's
// order (type check, Object.keys, then per sorted name: name check, one read of the value, its
// quoting), each check skipped when the trie already vouches for that string.
function formatObject(type, parameters) {
  let node = formatRoot.get(type);
  if (node === undefined && !isTypeString(type)) throw new TypeError('invalid type');
  const names = Object.keys(parameters);
  const n = names.length;
  if (n > 1) names.sort();
  const values = n === 0 ? EMPTY_ARRAY : new Array(n);
  const quoted = n === 0 ? EMPTY_ARRAY : new Array(n);
  for (let i = 0; i < n; i++) {
    const name = names[i];
    if (node !== undefined) node = node.get(name);
    if (node === undefined && !isTokenString(name)) throw new TypeError('invalid parameter name');
    const value = parameters[name];
    values[i] = value;
    if (node !== undefined) node = node.get(value);
    if (node === undefined) quoted[i] = quoteValue(value);
  }
  if (node !== undefined) {
    const header = node.get(FORMATTED);
    if (header !== undefined) return header;
  }
  const header = joinParameters(type, names, values, quoted, quoteValue);
  formatCacheSet(type, names, values, header);
  return header;
}

const EMPTY_ARRAY = Object.freeze([]);

/**
 * Format an object ({type, parameters}) as a Content-Type header.
 * @param {{type: string, parameters?: object}} obj
 * @returns {string}
 */
function format(obj) {
  if (!obj || typeof obj !== 'object') throw new TypeError('argument obj is required');
  const parameters = obj.parameters;
  const type = obj.type;
  if (typeof type === 'string' && parameters && typeof parameters === 'object') {
    return formatObject(type, parameters);
  }
  return formatSlow(parameters, type);
}

// Every other shape (non-string type, parameters absent or not an object), exactly as the package.
function formatSlow(parameters, type) {
  // A non-string type is coerced by RegExp#test exactly as the package does (and, like the
  // package, returned as it is when there are no parameters).
  if (!type || !(typeof type === 'string' ? isTypeString(type) : TYPE_REGEXP.test(type))) {
    throw new TypeError('invalid type');
  }
  let string = type;
  if (parameters && typeof parameters === 'object') {
    const names = Object.keys(parameters);
    if (names.length > 1) names.sort();
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (!isTokenString(name)) throw new TypeError('invalid parameter name');
      string += '; ' + name + '=' + quoteValue(parameters[name]);
    }
  }
  return string;
}

/**
 * Set the cache's capacity (entries; 0 disables it) and which scanner runs on a miss
 * ('auto': JavaScript up to 256 characters, C++ beyond; 'js'; 'native'). Returns the settings
 * in force.
 */
const CONFIGURE_OPTIONS = ['cacheSize', 'scanner'];

function configure(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw invalidType('options', 'an object', options);
  }
  ownOptions(options, CONFIGURE_OPTIONS, 'configure(options)');
  const { cacheSize, scanner } = options;
  if (cacheSize !== undefined) {
    if (!Number.isSafeInteger(cacheSize) || cacheSize < 0) {
      throw outOfRange('options.cacheSize', 'a non-negative integer', cacheSize);
    }
    parseCache.resize(cacheSize);
    formatCapacity = Math.floor(cacheSize / 2);
    formatRoot = new Map();
    formatInsertions = 0;
  }
  if (scanner !== undefined) {
    if (!Object.hasOwn(SCANNERS, scanner)) {
      throw invalidValue('options.scanner', "'auto', 'js' or 'native'", scanner);
    }
    scan = SCANNERS[scanner];
  }
  return { cacheSize: cache.capacity, scanner: Object.keys(SCANNERS).find((name) => SCANNERS[name] === scan) };
}

/**
 * Counters of the parse cache: hits; misses (headers scanned because they were not cached: a
 * first sighting is only remembered, the second is cached); stores (headers cached); bypasses
 * (headers too long or with too many parameters to be cached). hits / (hits + misses) is the hit
 * ratio of the headers the cache can hold.
 */
function cacheStats() {
  return parseCache.stats();
}

/** Empties the cache and zeroes its counters. */
function clearCache() {
  parseCache.clear();
  formatRoot = new Map();
  formatInsertions = 0;
}

module.exports = { parse, format, configure, cacheStats, clearCache };
