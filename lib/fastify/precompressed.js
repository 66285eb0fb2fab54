'use strict';
// @fastify/static's choice of a precompressed sibling: Accept-Encoding lower-cased, `*` read as
// gzip, negotiated over br, gzip, deflate minus those already tried, by
// @fastify/accept-negotiator's reading (lib/compression/negotiate.js).
const { acceptNegotiator } = require('../compression/negotiate');

const SUPPORTED = ['br', 'gzip', 'deflate'];
const ENCODING_EXTENSIONS = { br: '.br', gzip: '.gz', deflate: '.deflate' };

function negotiateEncoding(headers, checked) {
  if (!('accept-encoding' in headers)) return undefined;
  const header = headers['accept-encoding'].toLowerCase().replace(/\*/gu, 'gzip');
  const supported = checked.size === 0 ? SUPPORTED : SUPPORTED.filter((e) => !checked.has(e));
  const best = acceptNegotiator(header, supported);
  return best === undefined ? null : best;
}

module.exports = { negotiateEncoding, ENCODING_EXTENSIONS };
