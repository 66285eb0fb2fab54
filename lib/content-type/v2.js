'use strict';
// A drop-in for content-type 2.1.0 (what Express 5.3, body-parser >= 2.3, type-is >= 2.1 and
// negotiator 1.x load): `parse(header, { parameters, comma, start })` never throws on a string and
// returns `{ type, index, parameters }`; `format({ type, parameters })` keeps the parameters'
// order and throws the package's TypeErrors. Plus `isTypeValid`/`isTokenValid` as 3.x has them.
//
// The 2.x grammar is lenient (the type is not validated, a parameter without `=` is skipped, the
// first of a repeated name wins, an unterminated quoted value is dropped), so the scan below is
// one pass over char codes with that grammar. What makes it faster than the package is the same
// as in the 1.x module (index.js): a bounded cache in front of parse, answered in JavaScript,
// handing out a fresh result per call (callers mutate it: Express's setCharset sets
// `parameters.charset`, negotiator overwrites `type`), and a cache of finished headers in front
// of format.
const { ParseCache } = require('./parse-cache');
const { ownOptions } = require('../options');
const { invalidType, outOfRange } = require('../validate');
const { FormatTrie, joinParameters } = require('./format-trie');
const { isTokenString, isTypeString } = require('./scan');

const SP = 0x20;
const HTAB = 0x09;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NO_STOP = 0x10000; // never a UTF-16 code unit

// Character classes for 0x00-0xFF (higher code units are in none).
const TOKEN = 1; // RFC 9110 tchar
const TEXT = 2; // what format() accepts in a quoted value: HTAB, 0x20-0x7E, 0x80-0xFF
const CLASSES = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  CLASSES[c.charCodeAt(0)] |= TOKEN;
}
CLASSES[HTAB] |= TEXT;
for (let c = 0x20; c <= 0xff; c++) if (c !== 0x7f) CLASSES[c] |= TEXT;

// The package's expressions, used only where an argument is not a string and the package's
// coercions (ToString through RegExp#test) must be reproduced exactly.
const TYPE_REGEXP = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TOKEN_REGEXP = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TEXT_REGEXP = /^[\u0009\u0020-\u007e\u0080-\u00ff]*$/;
const ESCAPED_REGEXP = /[\\"]/g;

/**
 * The `parameters` object: no own properties at first, and nothing inherited (its prototype is an
 * empty object whose prototype is null), the shape content-type 2.x hands out. Instances made by
 * `new` start in V8's fast mode, unlike Object.create(null).
 */
function NullObject() {}
NullObject.prototype = Object.create(null);

// ---------------------------------------------------------------------------------------------
// The scan. Works on any value the package would accept (it only uses `length`, `charCodeAt`,
// `slice` and indexing, in the package's order, so a non-string header or an odd `start` fails or
// coerces exactly as there).

function skipWhitespace(header, index, length) {
  while (index < length) {
    const code = header.charCodeAt(index);
    if (code !== SP && code !== HTAB) break;
    index++;
  }
  return index;
}

function trimEnd(header, begin, end) {
  while (end > begin) {
    const code = header.charCodeAt(end - 1);
    if (code !== SP && code !== HTAB) break;
    end--;
  }
  return end;
}

// Up to the next `;` or stop character (or the end).
function skipToDelimiter(header, index, length, stop) {
  while (index < length) {
    const code = header.charCodeAt(index);
    if (code === SEMICOLON || code === stop) break;
    index++;
  }
  return index;
}

function scanType(header, start, stop) {
  const length = header.length;
  const begin = skipWhitespace(header, start, length);
  const index = skipToDelimiter(header, begin, length, stop);
  return { type: header.slice(begin, trimEnd(header, begin, index)).toLowerCase(), index, length };
}

// Parameters from `index` (a `;` or the stop character) on, into `parameters`; returns where the
// scan stopped. A name seen before is skipped (the first wins), as in the package.
function scanParameters(header, index, length, stop, parameters) {
  parameter: while (index < length) {
    if (header.charCodeAt(index) === stop) break;
    index = skipWhitespace(header, index + 1, length);
    const nameBegin = index;
    while (index < length) {
      const code = header.charCodeAt(index);
      if (code === stop) break parameter;
      if (code === SEMICOLON) continue parameter; // a name without "=": skipped
      if (code !== EQUALS) {
        index++;
        continue;
      }
      const name = header.slice(nameBegin, trimEnd(header, nameBegin, index)).toLowerCase();
      index = skipWhitespace(header, index + 1, length);
      if (index < length && header.charCodeAt(index) === DQUOTE) {
        // Quoted: a backslash takes the next code unit as it is; no closing quote, no parameter.
        index++;
        let value = '';
        let runBegin = index;
        while (index < length) {
          const c = header.charCodeAt(index++);
          if (c === DQUOTE) {
            value += header.slice(runBegin, index - 1);
            index = skipToDelimiter(header, index, length, stop);
            if (parameters[name] === undefined) parameters[name] = value;
            break;
          }
          if (c === BACKSLASH && index < length) {
            value += header.slice(runBegin, index - 1) + header[index++];
            runBegin = index;
          }
        }
        continue parameter;
      }
      const valueBegin = index;
      index = skipToDelimiter(header, index, length, stop);
      if (parameters[name] === undefined)
        parameters[name] = header.slice(valueBegin, trimEnd(header, valueBegin, index));
      continue parameter;
    }
  }
  return index;
}

// ---------------------------------------------------------------------------------------------
// The cache. Keyed by the header string; an entry holds one template per variant (comma or not,
// parameters or not, start offset) that was asked for. A template is never handed out: each call
// builds a fresh result from it.

const DEFAULT_CACHE_SIZE = 1024;
// Longer headers bypass the cache (not the repeated values a cache is for; this also bounds the
// memory: entries * (key + templates)).
const MAX_CACHED_LENGTH = 256;
const MAX_CACHED_PARAMETERS = 8;
// Start offsets cached per header (negotiator parses an Accept list entry by entry).
const MAX_VARIANTS = 16;

// First sightings (see index.js): a header is cached on its second sighting, so a stream of
// never-repeating headers costs no insertions (parse-cache.js holds the table and the counters).
const parseCache = new ParseCache(DEFAULT_CACHE_SIZE, 'content-type/v2');
const cache = parseCache.cache;

class Template {
  constructor(type, index, names, values) {
    this.type = type;
    this.index = index;
    this.names = names;
    this.values = values;
  }
}

class Entry {
  constructor() {
    // start 0, by flags (1: comma, 2: type only); other starts in `others` as [key, template].
    this.plain = undefined;
    this.comma = undefined;
    this.typeOnly = undefined;
    this.typeOnlyComma = undefined;
    this.others = undefined;
  }

  get(flags, start) {
    if (start === 0) {
      if (flags === 0) return this.plain;
      if (flags === 1) return this.comma;
      return flags === 2 ? this.typeOnly : this.typeOnlyComma;
    }
    const others = this.others;
    if (others === undefined) return undefined;
    const key = start * 4 + flags;
    for (let i = 0; i < others.length; i += 2) if (others[i] === key) return others[i + 1];
    return undefined;
  }

  set(flags, start, template) {
    if (start === 0) {
      if (flags === 0) this.plain = template;
      else if (flags === 1) this.comma = template;
      else if (flags === 2) this.typeOnly = template;
      else this.typeOnlyComma = template;
      return;
    }
    if (this.others === undefined) this.others = [];
    if (this.others.length < 2 * MAX_VARIANTS) this.others.push(start * 4 + flags, template);
  }
}

const EMPTY = Object.freeze([]);

function fromTemplate(template) {
  const parameters = new NullObject();
  const { names, values } = template;
  for (let i = 0; i < names.length; i++) parameters[names[i]] = values[i];
  return { type: template.type, index: template.index, parameters };
}

// The result of a scan: a fresh { type, index, parameters }.
function scanResult(header, start, flags) {
  const stop = (flags & 1) !== 0 ? COMMA : NO_STOP;
  const { type, index, length } = scanType(header, start, stop);
  const parameters = new NullObject();
  if ((flags & 2) !== 0) return { type, index, parameters };
  return { type, index: scanParameters(header, index, length, stop, parameters), parameters };
}

// A template of a result that is still unmodified (Object.keys order, re-assigned in that order,
// gives the same Object.keys order: integer-like names first, then insertion order).
function templateOf(result) {
  const names = Object.keys(result.parameters);
  return new Template(
    result.type,
    result.index,
    names,
    names.map((name) => result.parameters[name]),
  );
}

function parseCached(header, start, flags) {
  let entry = cache.get(header);
  if (entry !== undefined) {
    const template = entry.get(flags, start);
    if (template !== undefined) {
      parseCache.hits++;
      return fromTemplate(template);
    }
  }
  const seenOnce = parseCache.seenOnce;
  const slot = cache.lastHash & (seenOnce.length - 1);
  const result = scanResult(header, start, flags);
  if (header.length > MAX_CACHED_LENGTH) {
    parseCache.bypasses++;
  } else if (entry === undefined && seenOnce[slot] !== header) {
    parseCache.misses++;
    seenOnce[slot] = header;
  } else {
    const template = templateOf(result);
    if (template.names.length > MAX_CACHED_PARAMETERS) {
      parseCache.bypasses++;
      return result;
    }
    parseCache.misses++;
    parseCache.stores++;
    if (entry === undefined) {
      seenOnce[slot] = undefined;
      entry = new Entry();
      cache.set(header, entry);
    }
    entry.set(flags, start, template);
  }
  return result;
}

// Everything that is not a string header with a non-negative integer start: the package's steps
// on whatever was passed (a non-string header throws as there; an odd start coerces as there).
function parseGeneric(header, comma, start, options) {
  const stop = comma ? COMMA : NO_STOP;
  const { type, index, length } = scanType(header, start, stop);
  const parameters = new NullObject();
  if (options?.parameters === false) return { type, index, parameters };
  return { type, index: scanParameters(header, index, length, stop, parameters), parameters };
}

/**
 * Parse a Content-Type (or, with `comma`, one entry of an Accept-style list) from `start` on.
 * Never throws for a string header.
 * @param {string} header
 * @param {{parameters?: boolean, comma?: boolean, start?: number}} [options]
 * @returns {{type: string, index: number, parameters: Record<string, string>}}
 */
function parse(header, options) {
  // The options are read in the package's order: comma, start, then parameters.
  const comma = options?.comma === true;
  const start = options?.start ?? 0;
  if (
    typeof header !== 'string' ||
    typeof start !== 'number' ||
    !(start >= 0 && start <= 0x3fffffff) ||
    start % 1 !== 0
  ) {
    return parseGeneric(header, comma, start, options);
  }
  const flags = (comma ? 1 : 0) | (options?.parameters === false ? 2 : 0);
  // Nothing to scan: the package returns the start itself as the index (even a -0), no type.
  if (start >= header.length) return { type: '', index: start, parameters: new NullObject() };
  if (cache.capacity === 0) return scanResult(header, start, flags);
  return parseCached(header, start, flags);
}

// ---------------------------------------------------------------------------------------------
// format

// The package's parameter value: a token as it is, other text quoted with \ before " and \,
// anything else a TypeError. A non-string value goes through the package's exact steps (RegExp
// coercion, then `str.replace`, which only strings have).
function quoteValue(str) {
  if (typeof str !== 'string') {
    if (TOKEN_REGEXP.test(str)) return str;
    if (TEXT_REGEXP.test(str)) return `"${str.replace(ESCAPED_REGEXP, '\\$&')}"`;
    throw new TypeError(`Invalid parameter value: ${str}`);
  }
  const n = str.length;
  let token = n > 0;
  let escapes = false;
  for (let i = 0; i < n; i++) {
    const code = str.charCodeAt(i);
    if (code > 255 || (CLASSES[code] & TEXT) === 0) throw new TypeError(`Invalid parameter value: ${str}`);
    if ((CLASSES[code] & TOKEN) === 0) {
      token = false;
      if (code === DQUOTE || code === BACKSLASH) escapes = true;
    }
  }
  if (token) return str;
  return '"' + (escapes ? str.replace(ESCAPED_REGEXP, '\\$&') : str) + '"';
}

const formatCache = new FormatTrie(DEFAULT_CACHE_SIZE / 2);

// A string type and an object of parameters: the package's steps in the package's order (type
// check, Object.keys, then per name: name check, one read of the value, its quoting), each check
// skipped where the trie already vouches for that string.
function formatObject(type, parameters) {
  let node = formatCache.root(type);
  if (node === undefined && !isTypeString(type)) throw new TypeError(`Invalid type: ${type}`);
  const names = Object.keys(parameters);
  const n = names.length;
  const values = n === 0 ? EMPTY : new Array(n);
  const quoted = n === 0 ? EMPTY : new Array(n);
  for (let i = 0; i < n; i++) {
    const name = names[i];
    if (node !== undefined) node = node.get(name);
    if (node === undefined && !isTokenString(name)) throw new TypeError(`Invalid parameter name: ${name}`);
    const value = parameters[name];
    values[i] = value;
    if (node !== undefined) node = node.get(value);
    if (node === undefined) quoted[i] = quoteValue(value);
  }
  const cached = formatCache.finished(node);
  if (cached !== undefined) return cached;
  const header = joinParameters(type, names, values, quoted, quoteValue);
  formatCache.set(type, names, values, header);
  return header;
}

// Every other shape, exactly as the package (a non-string type is coerced as RegExp#test does).
function formatGeneric(type, parameters) {
  if (!type || !(typeof type === 'string' ? isTypeString(type) : TYPE_REGEXP.test(type))) {
    throw new TypeError(`Invalid type: ${type}`);
  }
  let result = type;
  if (parameters) {
    for (const param of Object.keys(parameters)) {
      if (!isTokenString(param)) throw new TypeError(`Invalid parameter name: ${param}`);
      result += `; ${param}=${quoteValue(parameters[param])}`;
    }
  }
  return result;
}

/**
 * Format `{ type, parameters }` as a Content-Type header, parameters in their own order.
 * @param {{type: string, parameters?: Record<string, unknown>}} obj
 * @returns {string}
 */
function format(obj) {
  const { type, parameters } = obj;
  if (typeof type === 'string' && typeof parameters === 'object' && parameters !== null) {
    return formatObject(type, parameters);
  }
  return formatGeneric(type, parameters);
}

// ---------------------------------------------------------------------------------------------
// content-type 3.x's validators.

/** Whether type[start, end) is token "/" token (content-type 3.x). */
function isTypeValid(type, start = 0, end = type.length) {
  let slash = false;
  for (let index = start; index < end; index++) {
    const code = type.charCodeAt(index);
    if (code === 0x2f) {
      if (slash || index === start || index >= end - 1) return false;
      slash = true;
    } else if (!((CLASSES[code] & TOKEN) !== 0)) {
      return false;
    }
  }
  return slash;
}

/** Whether token[start, end) is a non-empty token (content-type 3.x). */
function isTokenValid(token, start = 0, end = token.length) {
  if (start >= end) return false;
  for (let index = start; index < end; index++) {
    if (!((CLASSES[token.charCodeAt(index)] & TOKEN) !== 0)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------

/** Set the parse cache's capacity in entries (0 disables it; also sizes format's cache). */
const CONFIGURE_OPTIONS = ['cacheSize'];

function configure(options = {}) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  ownOptions(options, CONFIGURE_OPTIONS, 'configure(options)');
  const { cacheSize } = options;
  if (cacheSize !== undefined) {
    if (!Number.isSafeInteger(cacheSize) || cacheSize < 0) {
      throw outOfRange('options.cacheSize', 'a non-negative integer', cacheSize);
    }
    parseCache.resize(cacheSize);
    formatCache.resize(Math.floor(cacheSize / 2));
  }
  return { cacheSize: cache.capacity };
}

/** hits; misses (scanned: not cached yet); stores (cached); bypasses (too long or too many parameters to cache). */
function cacheStats() {
  return parseCache.stats();
}

/** Empties both caches and zeroes the counters. */
function clearCache() {
  parseCache.clear();
  formatCache.clear();
}

module.exports = { parse, format, isTypeValid, isTokenValid, configure, cacheStats, clearCache };
