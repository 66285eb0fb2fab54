'use strict';
// Accept-Encoding as ssr-native's precompressed static variants read it (serveStatic and Koa's
// serve() with compress: true): RFC 9110 12.5.3 q-values, codings case-insensitive, a q that is
// not a number ranks as 0, and identity (when neither it nor `*` is named) at q=1. The peers'
// readings (negotiator 0.6 and 1.x, @fastify/compress, hono/compress) are in
// lib/compression/negotiate.js. Against compression 1.8's (negotiator 0.6) the one difference on
// well-formed headers is that implicit identity: negotiator ranks it at the lowest q listed, so
// `gzip;q=0.8` gets gzip there and identity here (test/js/files/accept-encoding-diff.test.js).

const ENCODINGS = ['br', 'gzip']; // preference on equal q

// q-value of each coding named in an Accept-Encoding header (RFC 9110 12.5.3).
function parseAcceptEncoding(header) {
  const q = new Map();
  for (const item of String(header).split(',')) {
    const parts = item.split(';');
    const coding = parts[0].trim().toLowerCase();
    if (!coding) continue;
    let value = 1;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i].trim();
      if (param[0] === 'q' || param[0] === 'Q') {
        const eq = param.indexOf('=');
        const parsed = eq === -1 ? NaN : Number(param.slice(eq + 1).trim());
        value = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    // the highest q wins if a coding is listed twice
    if (!q.has(coding) || q.get(coding) < value) q.set(coding, value);
  }
  return q;
}

/**
 * The encoding to send ('br', 'gzip') of those `variants` holds, or undefined for identity.
 * Ties: br, gzip, identity.
 */
function chooseEncoding(header, variants) {
  if (!header) return undefined;
  const q = parseAcceptEncoding(header);
  const star = q.has('*') ? q.get('*') : 0;
  const identity = q.has('identity') ? q.get('identity') : q.has('*') ? star : 1;
  let best;
  let bestQ = 0;
  for (const encoding of ENCODINGS) {
    if (!variants[encoding]) continue;
    const value = q.has(encoding) ? q.get(encoding) : star;
    if (value > bestQ) {
      best = encoding;
      bestQ = value;
    }
  }
  if (best === undefined) return undefined;
  return bestQ >= identity || identity === 0 ? best : undefined;
}

module.exports = { ENCODINGS, chooseEncoding };
