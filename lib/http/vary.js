'use strict';
// Adding Accept-Encoding to a response's Vary, as each peer does it. Each flavour takes the
// current value (undefined or null when the response has none) and returns the value to set, or
// undefined to leave the header as it is; the adapter reads and writes its own response object.
//   varyPackage      the `vary` package (compression), varyAcceptEncoding(res) its use on node's res
//   varyAppend       send-style stores of ours (serveStatic and Koa's serve() with compress: true):
//                    a case-insensitive token test, `*` included
//   honoVary         hono/compress: `*` alone or an Accept-Encoding token leaves it
//   fastifyCompressVary  @fastify/compress: lower case, unless some value already *contains*
//                    `accept-encoding` (a case-sensitive substring test, so `Accept-Encoding` gets both)
//   fastifyStaticVary    @fastify/static: lower case, unless a trimmed lower-cased token is
//                    accept-encoding or `*`
// and varyWith, ours for any other field (Available-Dictionary, the asset deltas' names).

const ACCEPT_ENCODING_OR_STAR_REGEXP = /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i;
const ACCEPT_ENCODING_REGEXP = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i;

/** `vary(res, 'Accept-Encoding')`: `*` stays (or wins), a listed name keeps the joined value. */
function varyPackage(current) {
  const value = current || '';
  const header = Array.isArray(value) ? value.join(', ') : String(value);
  const names = header === '*' ? ['*'] : fieldNames(header.toLowerCase());
  if (names.includes('*')) return '*';
  if (names.includes('accept-encoding')) return header !== '' ? header : undefined; // `vary` writes the joined value back
  return header ? `${header}, Accept-Encoding` : 'Accept-Encoding';
}

/** varyPackage on a node:http response. */
function varyAcceptEncoding(res) {
  const vary = varyPackage(res.getHeader('Vary'));
  if (vary !== undefined) res.setHeader('Vary', vary);
}

// The comma list of a Vary value, each name trimmed of spaces before it and after its last
// non-space character (vary's tokenizer, which keeps inner spaces).
function fieldNames(header) {
  const names = [];
  let start = 0;
  let end = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x20) {
      if (start === end) start = end = i + 1;
    } else if (c === 0x2c) {
      names.push(header.substring(start, end));
      start = end = i + 1;
    } else {
      end = i + 1;
    }
  }
  names.push(header.substring(start, end));
  return names;
}

/** Ours (send-style stores with precompressed variants): Accept-Encoding unless named or `*`. */
function varyAppend(current) {
  if (!current) return 'Accept-Encoding';
  if (ACCEPT_ENCODING_OR_STAR_REGEXP.test(String(current))) return undefined;
  return current + ', Accept-Encoding';
}

/** hono/compress's Vary. */
function honoVary(current) {
  if (current === '*' || (current && ACCEPT_ENCODING_REGEXP.test(current))) return undefined;
  return current ? `${current}, Accept-Encoding` : 'Accept-Encoding';
}

/** @fastify/compress's Vary (`current` is null when the reply has none). */
function fastifyCompressVary(current) {
  if (current === null) return 'accept-encoding';
  const values = Array.isArray(current) ? current : [current];
  if (values.some((value) => String(value).includes('accept-encoding'))) return undefined;
  return values.concat('accept-encoding').join(', ');
}

/** @fastify/static's Vary. */
function fastifyStaticVary(current) {
  if (current === undefined) return 'accept-encoding';
  const value = Array.isArray(current) ? current.join(', ') : String(current);
  for (const token of value.split(',')) {
    const t = token.trim().toLowerCase();
    if (t === 'accept-encoding' || t === '*') return undefined;
  }
  return value + ', accept-encoding';
}

/** `names` (one or a list) added to a Vary value (a string, an array or nothing), each once, `*` left alone. */
function varyWith(current, names) {
  const wanted = typeof names === 'string' ? [names] : names;
  const value = Array.isArray(current) ? current.join(', ') : current == null ? '' : String(current);
  if (value.trim() === '') return wanted.join(', ');
  const listed = value.split(',').map((name) => name.trim().toLowerCase());
  if (listed.includes('*')) return value;
  const missing = wanted.filter((name) => !listed.includes(name.toLowerCase()));
  return missing.length === 0 ? value : `${value}, ${missing.join(', ')}`;
}

module.exports = {
  varyWith,
  varyAcceptEncoding,
  varyPackage,
  varyAppend,
  honoVary,
  fastifyCompressVary,
  fastifyStaticVary,
};
