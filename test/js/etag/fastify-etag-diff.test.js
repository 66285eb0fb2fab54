'use strict';
// Differential test: ssr-native/fastify's fastifyEtag against @fastify/etag 6.2.0 on Fastify 5
// (and ours on Fastify 4 against it on Fastify 5: @fastify/etag 6 needs Fastify 5). Same
// statuses, headers and bodies for string, Buffer, JSON, stream and pre-tagged payloads under
// every If-None-Match form and option set; only the tag value differs (ours: the CRC-32 of the
// bytes, checked against zlib's; theirs: SHA-1). Bodies are drawn from a seeded generator.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const { Readable } = require('node:stream');
const peerEtag = require('@fastify/etag');
const ours = require('../../../lib/fastify');
const { mulberry32 } = require('../helpers/seeded-random');
const { rawRequest } = require('../helpers/static-tree');

const FASTIFIES = { 'fastify 5': require('fastify'), 'fastify 4': require('fastify4') };
const SEED = Number(process.env.SEED || 0xe7a9);

function bodies(seed) {
  const random = mulberry32(seed);
  const out = ['', 'hello', 'é€😀 unicode'];
  for (let i = 0; i < 6; i++) {
    const n = Math.floor(random() * 5000);
    out.push(Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join(''));
  }
  return out;
}

async function build(Fastify, plugin, options, texts) {
  const app = Fastify();
  await app.register(plugin, options);
  app.get('/text/:i', (req, reply) => reply.type('text/plain').send(texts[req.params.i]));
  app.get('/buffer/:i', (req, reply) => reply.type('application/octet-stream').send(Buffer.from(texts[req.params.i])));
  app.get('/json', () => ({ a: 1, list: [1, 2, 3] }));
  app.get('/stream', (req, reply) => reply.type('text/plain').send(Readable.from(['a', 'b'])));
  app.get('/tagged', (req, reply) => reply.header('etag', '"mine"').send('pre-tagged'));
  app.get('/tagged-stream', (req, reply) =>
    reply
      .header('etag', '"mine"')
      .type('text/plain')
      .send(Readable.from(['x'])),
  );
  app.get('/status', (req, reply) => reply.code(201).send('created'));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

function describe(r) {
  const headers = Object.entries(r.headers)
    .filter(([k]) => k !== 'date' && k !== 'etag' && k !== 'connection' && k !== 'keep-alive')
    .sort();
  return {
    status: r.status,
    headers,
    body: r.body.toString('latin1'),
    tagged: r.headers.etag !== undefined,
    weak: /^W\//.test(r.headers.etag || ''),
  };
}

function crcTag(body, weak) {
  return `${weak ? 'W/' : ''}"${body.length.toString(16)}-${(zlib.crc32(body) >>> 0).toString(16).padStart(8, '0')}"`;
}

for (const [label, Fastify] of Object.entries(FASTIFIES)) {
  test(`${label}: fastifyEtag answers as @fastify/etag 6.2.0 (seed ${SEED})`, async () => {
    const texts = bodies(SEED);
    for (const options of [
      {},
      { weak: true },
      { replyWith304: false },
      { algorithm: 'md5' },
      { weak: true, replyWith304: false },
    ]) {
      const peer = await build(FASTIFIES['fastify 5'], peerEtag, options, texts);
      const mine = await build(Fastify, ours.fastifyEtag, options, texts);
      try {
        const paths = [
          '/json',
          '/stream',
          '/tagged',
          '/tagged-stream',
          '/status',
          ...texts.flatMap((_, i) => [`/text/${i}`, `/buffer/${i}`]),
        ];
        for (const p of paths) {
          const first = {
            peer: await rawRequest(peer.server.address().port, p),
            ours: await rawRequest(mine.server.address().port, p),
          };
          assert.deepEqual(describe(first.ours), describe(first.peer), `${p} ${JSON.stringify(options)}`);
          const tag = first.ours.headers.etag;
          if (tag && tag !== '"mine"') assert.equal(tag, crcTag(first.ours.body, options.weak === true), p);
          for (const form of ['{tag}', 'W/{tag}', '{bare}', '"other"', '*', 'W/"x", {tag}']) {
            const h = (side) => {
              const t = first[side].headers.etag || '"none"';
              return { 'if-none-match': form.replace('{tag}', t).replace('{bare}', t.replace(/^W\//, '')) };
            };
            const theirs = await rawRequest(peer.server.address().port, p, { headers: h('peer') });
            const mineR = await rawRequest(mine.server.address().port, p, { headers: h('ours') });
            assert.deepEqual(describe(mineR), describe(theirs), `${p} ${form} ${JSON.stringify(options)}`);
          }
        }
      } finally {
        await Promise.all([peer.close(), mine.close()]);
      }
    }
  });
}

test('an algorithm the runtime lacks is refused as @fastify/etag refuses it', async () => {
  const app = require('fastify')();
  await assert.rejects(app.register(ours.fastifyEtag, { algorithm: 'nope' }).ready(), {
    name: 'TypeError',
    message: 'Algorithm nope not supported.',
  });
});

test('the plugin carries fastify-plugin metadata and three export names', () => {
  const { fastifyEtag, fastifyStatic } = ours;
  for (const [plugin, name] of [
    [fastifyEtag, '@fastify/etag'],
    [fastifyStatic, '@fastify/static'],
  ]) {
    assert.equal(plugin[Symbol.for('skip-override')], true);
    assert.equal(plugin[Symbol.for('fastify.display-name')], name);
    assert.deepEqual(plugin[Symbol.for('plugin-meta')], { fastify: '4.x || 5.x', name });
    assert.equal(plugin.default, plugin);
  }
  assert.equal(fastifyEtag.fastifyEtag, fastifyEtag);
  assert.equal(fastifyStatic.fastifyStatic, fastifyStatic);
});
