// Compile-only: ssr-native/fastify's plugins registered as Fastify's own declarations see them,
// and ssr-native/hono's middleware handed to Hono's app.use (tsconfig.fastify-hono.json).
import Fastify from 'fastify';
import { Hono } from 'hono';
import { fastifyStatic, fastifyEtag } from 'ssr-native/fastify';
import { serveStatic, etag } from 'ssr-native/hono';

const app = Fastify();
app.register(fastifyEtag, { weak: true });
app.register(fastifyStatic, {
  root: '/srv/public',
  prefix: '/assets/',
  preCompressed: true,
  maxAge: '1d',
  immutable: true,
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
  }),
);
hono.get('/', (c) => c.text('home'));
