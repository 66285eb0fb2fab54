'use strict';
// @fastify/static's choice of a precompressed sibling: Accept-Encoding (lower-cased, `*` read as
// gzip) negotiated over br, gzip, deflate minus those already tried, as @fastify/accept-negotiator
// reads the header: the highest q wins, ties go to the earlier supported encoding, a q that does
// not parse is 0, and `br` at q=1 ends the search at once.
const SUPPORTED = ['br', 'gzip', 'deflate'];
const ENCODING_EXTENSIONS = { br: '.br', gzip: '.gz', deflate: '.deflate' };

const BEGIN = 0;
const TOKEN = 1;
const QUALITY = 2;

function negotiateEncoding(headers, checked) {
  if (!('accept-encoding' in headers)) return undefined;
  const header = headers['accept-encoding'].toLowerCase().replace(/\*/gu, 'gzip');
  const supported = checked.size === 0 ? SUPPORTED : SUPPORTED.filter((e) => !checked.has(e));
  return negotiate(header, supported);
}

function negotiate(header, supported) {
  if (!header || supported.length === 0) return null;
  if (header === '*') return supported[0];
  let best = null;
  let bestPriority = Infinity;
  let bestQuality = 0;
  // true: the first supported encoding at q=1, nothing can beat it
  const consider = (token, quality) => {
    if (quality === 0 || bestQuality > quality) return false;
    const encoding = (token === '*' && supported[0]) || token;
    const priority = supported.indexOf(encoding);
    if (priority === -1) return false;
    if (priority === 0 && quality === 1) {
      best = encoding;
      return true;
    }
    if (bestQuality < quality || bestPriority > priority) {
      best = encoding;
      bestPriority = priority;
      bestQuality = quality;
    }
    return false;
  };
  let token = '';
  let quality = '';
  let state = BEGIN;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (c === ' ' || c === '\t') continue;
    if (c === ';') {
      if (state === TOKEN) {
        state = QUALITY;
        quality = '';
      }
      continue;
    }
    if (c === ',') {
      if (state === TOKEN || state === QUALITY) {
        if (consider(token, state === TOKEN ? 1 : parseFloat(quality) || 0)) return best;
        state = BEGIN;
        token = '';
        quality = '';
      }
      continue;
    }
    if (state === QUALITY) {
      if (c === 'q' || c === '=') continue;
      if (c === '.' || (c >= '0' && c <= '9')) {
        quality += c;
        continue;
      }
      // any other character ends the quality and starts a new token
      if (consider(token, parseFloat(quality) || 0)) return best;
      state = BEGIN;
      token = c;
      quality = '';
      continue;
    }
    if (state === BEGIN) {
      state = TOKEN;
      token += c;
      continue;
    }
    // TOKEN: whitespace inside a token starts it over
    const prev = header[i - 1];
    if (prev === ' ' || prev === '\t') token = '';
    token += c;
  }
  if (state === TOKEN) consider(token, 1);
  else if (state === QUALITY) consider(token, parseFloat(quality) || 0);
  return best;
}

module.exports = { negotiateEncoding, negotiate, ENCODING_EXTENSIONS };
