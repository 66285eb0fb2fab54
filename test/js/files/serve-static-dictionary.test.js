'use strict';
// serveStatic({ dictionary: true }): a file with a content hash in its name is offered as a
// dictionary for its own later versions (Use-As-Dictionary with a match on the name's pattern and
// the destination of its type), and a request for a later version naming that file's SHA-256 in
// Available-Dictionary (dcz accepted) is answered with a dcz delta: decoded against the old file,
// it is the new one, in a fraction of Brotli's bytes. Off by default (the differential suites run
// without it); files without a hash in their name, an unknown hash, a Range request: as before.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const express = require('express');
const serveStatic = require('../../../lib/express/serve-static');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const native = require('../../../lib/native');
const { request } = require('../helpers/http');
const { assetBundles } = require('../helpers/asset-bundles');

function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest();
}

test(
  'serveStatic dictionary: a hashed file is offered, its next version answered as a dcz delta',
  {
    skip: available ? false : unavailableReason,
  },
  async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assets-'));
    const { v1, v2 } = assetBundles();
    fs.mkdirSync(path.join(root, 'js'));
    fs.writeFileSync(path.join(root, 'js', 'main-a1b2c3d4.js'), v1);
    fs.writeFileSync(path.join(root, 'js', 'main-e5f6a7b8.js'), v2);
    fs.writeFileSync(path.join(root, 'styles.3f2a9c1d.css'), 'body{margin:0}'.repeat(200));
    fs.writeFileSync(path.join(root, 'app.js'), v1);
    const middleware = serveStatic(root, { dictionary: true });
    const app = express();
    app.use(middleware);
    const server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${server.address().port}`;
    try {
      const first = await request(`${url}/js/main-a1b2c3d4.js`);
      assert.equal(first.headers['use-as-dictionary'], 'match="/js/main-*.js", match-dest=("script")');
      assert.match(first.headers.vary, /Available-Dictionary/);
      assert.deepEqual(first.body, v1);
      const css = await request(`${url}/styles.3f2a9c1d.css`);
      assert.equal(css.headers['use-as-dictionary'], 'match="/styles.*.css", match-dest=("style")');
      // no hash in the name: nothing offered
      assert.equal((await request(`${url}/app.js`)).headers['use-as-dictionary'], undefined);

      const available = `:${sha256(v1).toString('base64')}:`;
      const delta = await request(`${url}/js/main-e5f6a7b8.js`, {
        headers: { 'accept-encoding': 'gzip, br, zstd, dcz', 'available-dictionary': available },
      });
      assert.equal(delta.status, 200);
      assert.equal(delta.headers['content-encoding'], 'dcz');
      assert.equal(Number(delta.headers['content-length']), delta.body.length);
      assert.match(delta.headers.etag, /-dcz[0-9a-f]{8}"$/);
      assert.deepEqual(native.dczDecode(v1, sha256(v1), delta.body, 1 << 24), v2);
      const brotli = zlib.brotliCompressSync(v2, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
      assert.ok(delta.body.length * 5 < brotli.length, `delta ${delta.body.length} vs br ${brotli.length}`);

      // the delta's own validator revalidates
      const again = await request(`${url}/js/main-e5f6a7b8.js`, {
        headers: { 'accept-encoding': 'dcz', 'available-dictionary': available, 'if-none-match': delta.headers.etag },
      });
      assert.equal(again.status, 304);

      for (const [name, headers] of [
        ['unknown hash', { 'available-dictionary': `:${sha256(Buffer.from('other')).toString('base64')}:` }],
        ['dcz not accepted', { 'available-dictionary': available, 'accept-encoding': 'gzip, br' }],
        ['a range', { 'available-dictionary': available, range: 'bytes=0-99' }],
        ['malformed', { 'available-dictionary': `${available}x` }],
      ]) {
        const answer = await request(`${url}/js/main-e5f6a7b8.js`, {
          headers: { 'accept-encoding': 'dcz', ...headers },
        });
        assert.notEqual(answer.headers['content-encoding'], 'dcz', name);
        assert.ok([200, 206].includes(answer.status), name);
      }
      assert.equal(middleware.dictionary.stats().hits, 1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
);

test('serveStatic dictionary: off by default, options checked', () => {
  const root = os.tmpdir();
  assert.equal(serveStatic(root).dictionary, null);
  assert.throws(() => serveStatic(root, { dictionary: 'yes' }), TypeError);
});
