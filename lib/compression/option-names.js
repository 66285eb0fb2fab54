'use strict';
// The option names each compression drop-in knows (lib/options.js reads them): the peer's own,
// then ssr-native's additions (cache, zstd, dictionary). Names outside these draw one warning,
// as the peers ignore them.

// compression 1.8: its own options, and zlib's, which it passes on to every encoder
const ZLIB_OPTIONS = [
  'flush',
  'finishFlush',
  'chunkSize',
  'windowBits',
  'level',
  'memLevel',
  'strategy',
  'info',
  'maxOutputLength',
  'params',
];
const COMPRESSION_OPTIONS = [
  'filter',
  'threshold',
  'brotli',
  'enforceEncoding',
  ...ZLIB_OPTIONS,
  'cache',
  'zstd',
  'dictionary',
];

// koa-compress 5: one options object per coding, and its negotiation settings
const KOA_COMPRESS_OPTIONS = [
  'filter',
  'threshold',
  'defaultEncoding',
  'wildcardAcceptEncoding',
  'encodingPreference',
  'gzip',
  'deflate',
  'br',
  'zstd',
  'cache',
  'dictionary',
];

// @fastify/compress 9 (its decompression options too, and Fastify's register options)
const FASTIFY_COMPRESS_OPTIONS = [
  ...['global', 'globalCompression', 'globalDecompression', 'threshold', 'customTypes', 'zlib'],
  ...['brotliOptions', 'zlibOptions', 'encodings', 'requestEncodings', 'forceRequestEncoding'],
  ...['onUnsupportedEncoding', 'onUnsupportedRequestEncoding', 'onInvalidRequestPayload'],
  ...['inflateIfDeflated', 'removeContentLengthHeader', 'syncThreshold', 'prefix', 'logLevel', 'logSerializers'],
  'cache',
  'dictionary',
];

// hono/compress
const HONO_COMPRESS_OPTIONS = ['encoding', 'threshold', 'contentTypeFilter', 'cache', 'dictionary'];

module.exports = { COMPRESSION_OPTIONS, KOA_COMPRESS_OPTIONS, FASTIFY_COMPRESS_OPTIONS, HONO_COMPRESS_OPTIONS };
