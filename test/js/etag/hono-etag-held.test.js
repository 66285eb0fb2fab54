'use strict';
// Proves that ssr-native/hono's etag() reads a body @hono/node-server's Response still holds
// (its internal 'cache' holder, lib/hono/held-body.js) for strings and bytes, and that a response
// without that holder (a stream body; a Response of the runtime's own class, as a node-server that
// renamed or dropped the holder would give) takes the public route, a clone read back, with the
// same tag. A real node-server app serves every case. If a newer @hono/node-server stops holding
// bodies this way, the first test fails, naming the route that was taken.
const test = require('node:test');
const assert = require('node:assert/strict');

// the runtime's own Response, before node-server installs its class over the global one
const RuntimeResponse = globalThis.Response;
const { Hono } = require('hono');
const { serve } = require('@hono/node-server');
const { etag } = require('../../../lib/hono');
const held = require('../../../lib/hono/held-body');
const { etag: entityTag } = require('../../../lib/etag');

const TEXT = 'hello from a held body\n'.repeat(20);
const expectedTag = entityTag(Buffer.from(TEXT), { weak: false });

async function withApp(fn) {
  const app = new Hono();
  app.use('*', etag());
  app.get('/text', (c) => c.text(TEXT));
  app.get('/bytes', (c) => c.body(new Uint8Array(Buffer.from(TEXT))));
  app.get('/stream', (c) => c.body(new Blob([TEXT]).stream()));
  app.get('/runtime', () => new RuntimeResponse(TEXT, { headers: { 'content-type': 'text/plain' } }));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  try {
    await fn(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections?.();
    await new Promise((done) => server.close(done));
  }
}

async function routeTaken(url) {
  const before = held.stats();
  const res = await fetch(url);
  const body = await res.text();
  const after = held.stats();
  return {
    tag: res.headers.get('etag'),
    body,
    held: after.held - before.held,
    notHeld: after.notHeld - before.notHeld,
  };
}

// each path's body and tag, and which route etag() read the body by ({ held, notHeld } counts)
async function assertRoutes(paths, route) {
  await withApp(async (base) => {
    for (const path of paths) {
      const r = await routeTaken(base + path);
      assert.equal(r.body, TEXT, path);
      assert.equal(r.tag, expectedTag, path);
      assert.deepEqual({ held: r.held, notHeld: r.notHeld }, route, `${path}: route taken`);
    }
  });
}

test('strings and bytes node-server holds are hashed where they are held', () =>
  assertRoutes(['/text', '/bytes'], { held: 1, notHeld: 0 }));

test('a body without the holder is read from a clone, with the same tag', () =>
  assertRoutes(['/stream', '/runtime'], { held: 0, notHeld: 1 }));

test('a holder of another shape is not trusted', async () => {
  await withApp(async () => {
    // serve() has put node-server's Response class in place of the global one
    const probe = new globalThis.Response('x');
    const sym = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'cache');
    assert.ok(sym, "node-server's Response holds its body under a 'cache' symbol");
    assert.equal(held.heldBody(probe), 'x');
    for (const shape of ['text', ['200', 'text'], [200, { text: true }], [200]]) {
      probe[sym] = shape;
      assert.equal(held.heldBody(probe), undefined, JSON.stringify(shape));
    }
  });
});

// A 304 drops the route's response: the body it holds is let go as it is, not turned into a web
// stream first only to cancel it (reading res.body does that on node-server).
test('a 304 leaves the held body as it was', async () => {
  const app = new Hono();
  app.use('*', etag());
  let routeResponse;
  app.get('/', (c) => (routeResponse = c.text(TEXT)));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.address().port}/`, {
      headers: { 'if-none-match': expectedTag },
    });
    assert.equal(res.status, 304);
    assert.equal(res.headers.get('etag'), expectedTag);
    assert.equal(held.peekHeldBody(routeResponse), TEXT, "the route's response still holds its body");
  } finally {
    server.closeAllConnections?.();
    await new Promise((done) => server.close(done));
  }
});
