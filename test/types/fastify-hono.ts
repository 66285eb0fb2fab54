// Compile-only: ssr-native/fastify's plugins registered as Fastify's own declarations see them,
// and ssr-native/hono's middleware handed to Hono's app.use (tsconfig.fastify-hono.json).
import Fastify from 'fastify';
import { Hono } from 'hono';
import { constants as zlibConstants } from 'zlib';
import { fastifyStatic, fastifyEtag, fastifyCompress, criticalCss } from 'ssr-native/fastify';
import { serveStatic, etag, compress } from 'ssr-native/hono';
import type { ContentCache } from 'ssr-native/compression';

const app = Fastify();
app.register(criticalCss, { browserDistFolder: 'dist/browser', maxBuffer: 1 << 20 });
app.register(fastifyEtag, { weak: true });
app.register(fastifyStatic, {
  root: '/srv/public',
  prefix: '/assets/',
  preCompressed: true,
  maxAge: '1d',
  immutable: true,
  dictionary: true,
});
app.register(fastifyStatic.default, { root: ['/srv/a', '/srv/b'], serve: false, decorateReply: false });
app.get('/doc', (req, reply) => reply.sendFile('doc.html', { maxAge: 60000 }));
app.get('/file', (req, reply) => reply.download('report.pdf', 'report.pdf'));

const hono = new Hono();
hono.use('*', etag({ retainedHeaders: ['x-keep'] }));
hono.use(
  '/static/*',
  serveStatic({
    root: './public',
    rewriteRequestPath: (p) => p.replace(/^\/static/, ''),
    onNotFound: (p, c) => console.log(p, c.req.path),
    dictionary: { maxEntries: 32 },
  }),
);
hono.get('/', (c) => c.text('home'));

// compression: the plugin with its options, route-level settings and reply.compress; Hono's middleware
app.register(fastifyCompress, {
  global: true,
  threshold: 2048,
  encodings: ['br', 'gzip'],
  brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } },
  onUnsupportedEncoding: (encoding, request, reply) => `unsupported: ${encoding} ${request.url} ${reply.statusCode}`,
  requestEncodings: ['gzip', 'deflate'],
  onInvalidRequestPayload: (encoding, request, error) => new Error(`${encoding}: ${error.message}`),
  cache: { maxBytes: 8 * 1024 * 1024 },
});
app.register(fastifyCompress.default, { global: false, cache: false });
app.get('/big', { compress: { threshold: 0, encodings: ['gzip'] }, decompress: false }, (req, reply) =>
  reply.type('text/html').compress('<p>big</p>'.repeat(1000)),
);
app.route({
  method: 'POST',
  url: '/in',
  decompress: { requestEncodings: ['gzip'] },
  compress: false,
  handler: () => 'ok',
});

hono.use(compress());
hono.use('/api/*', compress({ encoding: 'gzip', threshold: 2048, contentTypeFilter: /json/ }));
const honoCache: ContentCache | null = compress({ cache: false }).cache;
console.log(honoCache);
