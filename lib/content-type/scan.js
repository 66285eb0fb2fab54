'use strict';
// Content-Type scanners: the grammar of content-type 1.0.5 (see include/ssr_native/content_type.h)
// in two implementations with one output, so index.js (1.x) can use either on a cache miss and
// the tests can hold both against the package.
//
// A scan returns the finished result (a ContentType: type and parameter names lower-cased,
// values unquoted and unescaped, the last of a repeated name winning) or one of the negative
// error codes below.
// The addon is loaded on first use of the native scanner only, so the default (JavaScript) path
// works even where the addon could not be built.
let native;
const { GenerationalCache } = require('../bounded/generational-cache');

const INVALID_MEDIA_TYPE = -1;
const INVALID_PARAMETER_FORMAT = -2;
const ERROR_MESSAGES = {
  [INVALID_MEDIA_TYPE]: 'invalid media type',
  [INVALID_PARAMETER_FORMAT]: 'invalid parameter format',
};

// Character classes for code units 0x00-0xFF (higher code units are in none).
const TOKEN = 1; // [!#$%&'*+.^_`|~0-9A-Za-z-]
const QUOTED_TEXT = 2; // [\u000b\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]
const QUOTED_PAIR_END = 4; // [\u000b\u0020-\u00ff]
const CLASSES = new Uint8Array(256);
for (const c of "!#$%&'*+.^_`|~-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  CLASSES[c.charCodeAt(0)] |= TOKEN;
}
CLASSES[0x0b] |= QUOTED_TEXT | QUOTED_PAIR_END;
for (let c = 0x20; c <= 0xff; c++) {
  CLASSES[c] |= QUOTED_PAIR_END;
  if (c !== 0x22 && c !== 0x5c && c !== 0x7f) CLASSES[c] |= QUOTED_TEXT;
}

const QUOTED_PAIR = /\\([\u000b\u0020-\u00ff])/g;

// What String.prototype.trim() removes (ECMAScript WhiteSpace and LineTerminator).
function isTrimmed(code) {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code === 0xa0) return true;
  if (code < 0x1680) return false;
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

// Parameter names are used as property keys of a null-prototype (dictionary-mode) object, and V8
// is far slower to add a freshly sliced string as a key there than a key it has seen before
// (docs/content-type.md). So names are mapped to one canonical string each (bounded).
const names = new GenerationalCache(512);
const MAX_INTERNED_NAME_LENGTH = 64;

function canonicalName(name) {
  if (name.length > MAX_INTERNED_NAME_LENGTH) return name;
  const known = names.get(name);
  if (known !== undefined) return known;
  names.set(name, name);
  return name;
}

/** The object parse() returns: own `parameters` (null prototype) then `type`, like the package. */
function ContentType(type, parameters) {
  this.parameters = parameters;
  this.type = type;
}

// The `parameters` object: own data properties, prototype null, two ways to build it.
// Object.create(null) is cheaper to make but V8 keeps such an object in dictionary mode, where
// Object.keys is slow; an object literal whose prototype is then set to null costs more to make
// but stays in fast mode (a fast Object.keys, all such objects share hidden classes). format()
// enumerates keys, so a result likely to be formatted is built the second way; see parse().
// The two are indistinguishable from JavaScript.
function nullPrototypeObject(forFormat) {
  return forFormat ? Object.setPrototypeOf({}, null) : Object.create(null);
}

/** The scan in JavaScript: one pass over char codes, no regular expression unless escaped. */
function scanJs(header, forFormat) {
  const n = header.length;
  let semicolon = header.indexOf(';');
  if (semicolon === -1) semicolon = n;

  let begin = 0;
  let end = semicolon;
  while (begin < end && isTrimmed(header.charCodeAt(begin))) begin++;
  while (end > begin && isTrimmed(header.charCodeAt(end - 1))) end--;
  let i = begin;
  let upper = false;
  let code;
  while (i < end && (code = header.charCodeAt(i)) < 256 && (CLASSES[code] & TOKEN) !== 0) {
    if (code <= 0x5a && code >= 0x41) upper = true;
    i++;
  }
  if (i === begin || i === end || header.charCodeAt(i) !== 0x2f /* / */) return INVALID_MEDIA_TYPE;
  const subtype = ++i;
  while (i < end && (code = header.charCodeAt(i)) < 256 && (CLASSES[code] & TOKEN) !== 0) {
    if (code <= 0x5a && code >= 0x41) upper = true;
    i++;
  }
  if (i === subtype || i !== end) return INVALID_MEDIA_TYPE;

  const type = upper ? header.slice(begin, end).toLowerCase() : header.slice(begin, end);
  const parameters = nullPrototypeObject(forFormat);
  let pos = semicolon;
  while (pos < n) {
    if (header.charCodeAt(pos) !== 0x3b /* ; */) return INVALID_PARAMETER_FORMAT;
    pos++;
    while (pos < n && header.charCodeAt(pos) === 0x20) pos++;
    const nameBegin = pos;
    upper = false;
    while (pos < n && (code = header.charCodeAt(pos)) < 256 && (CLASSES[code] & TOKEN) !== 0) {
      if (code <= 0x5a && code >= 0x41) upper = true;
      pos++;
    }
    if (pos === nameBegin) return INVALID_PARAMETER_FORMAT;
    const name = header.slice(nameBegin, pos);
    while (pos < n && header.charCodeAt(pos) === 0x20) pos++;
    if (header.charCodeAt(pos) !== 0x3d /* = */) return INVALID_PARAMETER_FORMAT;
    pos++;
    while (pos < n && header.charCodeAt(pos) === 0x20) pos++;
    let value;
    if (header.charCodeAt(pos) === 0x22 /* " */) {
      const valueBegin = ++pos;
      let escaped = false;
      for (;;) {
        if (pos >= n) return INVALID_PARAMETER_FORMAT;
        code = header.charCodeAt(pos);
        if (code === 0x22) break;
        if (code === 0x5c /* \ */) {
          const next = header.charCodeAt(pos + 1); // NaN past the end
          if (!(next < 256 && (CLASSES[next] & QUOTED_PAIR_END) !== 0)) return INVALID_PARAMETER_FORMAT;
          escaped = true;
          pos += 2;
        } else if (code < 256 && (CLASSES[code] & QUOTED_TEXT) !== 0) {
          pos++;
        } else {
          return INVALID_PARAMETER_FORMAT;
        }
      }
      value = header.slice(valueBegin, pos);
      if (escaped) value = value.replace(QUOTED_PAIR, '$1');
      pos++;
    } else {
      const valueBegin = pos;
      while (pos < n && (code = header.charCodeAt(pos)) < 256 && (CLASSES[code] & TOKEN) !== 0) {
        pos++;
      }
      if (pos === valueBegin) return INVALID_PARAMETER_FORMAT;
      value = header.slice(valueBegin, pos);
    }
    while (pos < n && header.charCodeAt(pos) === 0x20) pos++;
    parameters[canonicalName(upper ? name.toLowerCase() : name)] = value;
  }
  return new ContentType(type, parameters);
}

// The native scan writes offsets here (see src/addon/content_type_binding.cc): 3 + 5 per
// parameter. Grown on demand (never shrunk: it is per thread and small).
let offsets = new Uint32Array(3 + 5 * 16);

/** The scan in C++ (src/core/content_type.cc): one native call, then slices in JavaScript. */
function scanNative(header, forFormat) {
  if (native === undefined) native = require('../native');
  let count = native.scanMediaType(header, offsets);
  while (count === -3) {
    offsets = new Uint32Array(offsets.length * 4);
    count = native.scanMediaType(header, offsets);
  }
  if (count < 0) return count;
  const out = offsets;
  const type = header.slice(out[0], out[1]);
  const parameters = nullPrototypeObject(forFormat);
  for (let i = 0, at = 3; i < count; i++, at += 5) {
    const flags = out[at + 4];
    const name = header.slice(out[at], out[at + 1]);
    let value = header.slice(out[at + 2], out[at + 3]);
    if ((flags & 1) !== 0) value = value.replace(QUOTED_PAIR, '$1');
    parameters[canonicalName((flags & 2) !== 0 ? name.toLowerCase() : name)] = value;
  }
  return new ContentType(out[2] === 1 ? type.toLowerCase() : type, parameters);
}

// Whole-string checks for format(): shared by the 1.x and 2.x modules (same tchar set).
function isTokenString(str) {
  const n = str.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const code = str.charCodeAt(i);
    if (code > 255 || (CLASSES[code] & TOKEN) === 0) return false;
  }
  return true;
}

// token "/" token, without slicing.
function isTypeString(str) {
  const n = str.length;
  let slash = -1;
  for (let i = 0; i < n; i++) {
    const code = str.charCodeAt(i);
    if (code === 0x2f && slash === -1 && i > 0) {
      slash = i;
    } else if (code > 255 || (CLASSES[code] & TOKEN) === 0) {
      return false;
    }
  }
  return slash !== -1 && slash < n - 1;
}

module.exports = {
  scanJs,
  scanNative,
  ContentType,
  nullPrototypeObject,
  ERROR_MESSAGES,
  CLASSES,
  TOKEN,
  QUOTED_TEXT,
  isTokenString,
  isTypeString,
};
