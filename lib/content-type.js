'use strict';
// A drop-in for content-type 1.0.5 (what Express 4/5, body-parser, type-is and Koa load):
// `parse` and `format` with the same API, results and TypeError messages, and a bounded cache in
// front of `parse`, so the handful of Content-Type values a server sees on every request are
// parsed once. A cache hit stays in JavaScript; each call returns a fresh object the caller may
// mutate (Express's setCharset does).
const { scanJs, scanNative, CLASSES, TOKEN, QUOTED_TEXT, ERROR_MESSAGES } = require('./content-type-scan');
const { GenerationalCache } = require('./generational-cache');

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

/** The object parse() returns: own `parameters` (null prototype) then `type`, like the package. */
function ContentType(type) {
  this.parameters = Object.create(null);
  this.type = type;
}

// Which scanner runs on a miss. Measured (bench/http/scenarios/content-type.js, see
// docs/content-type.md): the JavaScript scan is faster, because a native call plus reading the
// string costs more than scanning a typical header in JIT-compiled code.
let scan = scanJs;
const cache = new GenerationalCache(DEFAULT_CACHE_SIZE);
let hits = 0;
let misses = 0;
let bypasses = 0;

function fromTemplate(template) {
  const result = new ContentType(template.type);
  const { names, values } = template;
  const parameters = result.parameters;
  for (let i = 0; i < names.length; i++) parameters[names[i]] = values[i];
  return result;
}

function parseHeader(header) {
  let template = cache.get(header);
  if (template !== undefined) {
    hits++;
    return fromTemplate(template);
  }
  template = scan(header);
  if (typeof template === 'number') throw new TypeError(ERROR_MESSAGES[template]);
  if (header.length <= MAX_CACHED_LENGTH && template.names.length <= MAX_CACHED_PARAMETERS) {
    misses++;
    cache.set(header, template);
  } else {
    bypasses++;
  }
  return fromTemplate(template);
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
  if (typeof string === 'string' && string !== '') return parseHeader(string);
  if (!string) throw new TypeError('argument string is required');
  const header = typeof string === 'object' ? getContentType(string) : string;
  if (typeof header !== 'string') throw new TypeError('argument string is required to be a string');
  return parseHeader(header);
}

function isTokenString(str) {
  const n = str.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const code = str.charCodeAt(i);
    if (code > 255 || (CLASSES[code] & TOKEN) === 0) return false;
  }
  return true;
}

function isTypeString(str) {
  const slash = str.indexOf('/');
  return (
    slash > 0 &&
    isTokenString(str.slice(0, slash)) &&
    slash < str.length - 1 &&
    isTokenString(str.slice(slash + 1))
  );
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

/**
 * Format an object ({type, parameters}) as a Content-Type header.
 * @param {{type: string, parameters?: object}} obj
 * @returns {string}
 */
function format(obj) {
  if (!obj || typeof obj !== 'object') throw new TypeError('argument obj is required');
  const parameters = obj.parameters;
  const type = obj.type;
  // A non-string type is coerced by RegExp#test exactly as the package does (and, like the
  // package, returned as it is when there are no parameters).
  if (!type || !(typeof type === 'string' ? isTypeString(type) : TYPE_REGEXP.test(type))) {
    throw new TypeError('invalid type');
  }
  let string = type;
  if (parameters && typeof parameters === 'object') {
    const names = Object.keys(parameters).sort();
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
 * ('js' or 'native'). Returns the settings in force.
 */
function configure(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('options must be an object');
  }
  const { cacheSize, scanner } = options;
  if (cacheSize !== undefined) {
    if (!Number.isSafeInteger(cacheSize) || cacheSize < 0) {
      throw new RangeError(`options.cacheSize must be a non-negative integer, got ${String(cacheSize)}`);
    }
    cache.resize(cacheSize);
  }
  if (scanner !== undefined) {
    if (scanner !== 'js' && scanner !== 'native') {
      throw new TypeError(`options.scanner must be 'js' or 'native', got ${String(scanner)}`);
    }
    scan = scanner === 'js' ? scanJs : scanNative;
  }
  return { cacheSize: cache.capacity, scanner: scan === scanJs ? 'js' : 'native' };
}

/** Counters of the parse cache (misses count only headers that were then cached). */
function cacheStats() {
  return { size: cache.size, capacity: cache.capacity, hits, misses, bypasses };
}

/** Empties the cache and zeroes its counters. */
function clearCache() {
  cache.clear();
  hits = 0;
  misses = 0;
  bypasses = 0;
}

module.exports = { parse, format, configure, cacheStats, clearCache };
