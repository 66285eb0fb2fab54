'use strict';
// ssr-native's etag as Express's "etag fn", over real HTTP, on Express 4 and 5.
const test = require('node:test');
const assert = require('node:assert/strict');
const { etag } = require('../../..');
const { listen, request } = require('../helpers/http');

const expressVersions = { 'express 4': require('express4'), 'express 5': require('express') };
const page = '<!doctype html><title>x</title>' + 'ssr '.repeat(20000);

for (const [label, express] of Object.entries(expressVersions)) {
  test(`${label}: app.set('etag', etag) tags res.send bodies and answers 304`, async (t) => {
    const app = express();
    app.set('etag', etag);
    app.get('/html', (req, res) => res.type('html').send(page));
    app.get('/buffer', (req, res) => res.send(Buffer.from('binary body')));
    app.get('/json', (req, res) => res.json({ ok: true, n: 42 }));
    app.get('/preset', (req, res) => res.set('ETag', '"mine"').send('body'));
    app.get('/missing', (req, res) => res.status(404).send('not here'));
    const { url, close } = await listen(app);
    t.after(close);

    const html = await request(`${url}/html`);
    assert.equal(html.status, 200);
    assert.equal(html.headers.etag, etag(Buffer.from(page)));
    assert.equal(html.headers.etag, etag(html.body));
    assert.match(html.headers.etag, /^W\/"[0-9a-f]+-[0-9a-f]{8}"$/);

    const fresh = await request(`${url}/html`, { headers: { 'if-none-match': html.headers.etag } });
    assert.equal(fresh.status, 304);
    assert.equal(fresh.body.length, 0);
    assert.equal(fresh.headers['content-type'], undefined);

    // Weak comparison: the strong form of the same tag also matches.
    const strong = html.headers.etag.slice(2);
    assert.equal((await request(`${url}/html`, { headers: { 'if-none-match': strong } })).status, 304);
    assert.equal((await request(`${url}/html`, { headers: { 'if-none-match': 'W/"1-00000000"' } })).status, 200);
    assert.equal(
      (await request(`${url}/html`, { headers: { 'if-none-match': `"x", ${html.headers.etag}` } })).status,
      304,
    );
    assert.equal(
      (await request(`${url}/html`, { headers: { 'if-none-match': html.headers.etag, 'cache-control': 'no-cache' } }))
        .status,
      200,
    );

    const head = await request(`${url}/html`, { method: 'HEAD' });
    assert.equal(head.headers.etag, html.headers.etag);
    assert.equal(head.body.length, 0);

    const buffer = await request(`${url}/buffer`);
    assert.equal(buffer.headers.etag, etag(Buffer.from('binary body')));

    const json = await request(`${url}/json`);
    assert.equal(json.headers.etag, etag(json.body));
    assert.equal((await request(`${url}/json`, { headers: { 'if-none-match': json.headers.etag } })).status, 304);

    assert.equal((await request(`${url}/preset`)).headers.etag, '"mine"');

    // Express tags every status; only 2xx/304 can be fresh.
    const missing = await request(`${url}/missing`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.etag, etag('not here'));
    assert.equal((await request(`${url}/missing`, { headers: { 'if-none-match': missing.headers.etag } })).status, 404);
  });

  test(`${label}: the same 304/200 decisions as Express's own weak ETag`, async (t) => {
    const ours = express();
    ours.set('etag', etag);
    const theirs = express();
    theirs.set('etag', 'weak');
    for (const app of [ours, theirs]) {
      app.get('/', (req, res) => res.send(page));
      app.get('/dated', (req, res) => res.set('Last-Modified', new Date(0).toUTCString()).send('dated'));
    }
    const a = await listen(ours);
    const b = await listen(theirs);
    t.after(() => Promise.all([a.close(), b.close()]));
    const tagA = (await request(`${a.url}/`)).headers.etag;
    const tagB = (await request(`${b.url}/`)).headers.etag;
    const datedA = (await request(`${a.url}/dated`)).headers.etag;
    const datedB = (await request(`${b.url}/dated`)).headers.etag;
    const cases = [
      [{}, {}],
      [{ 'if-none-match': tagA }, { 'if-none-match': tagB }],
      [{ 'if-none-match': '*' }, { 'if-none-match': '*' }],
      [{ 'if-none-match': 'W/"nope"' }, { 'if-none-match': 'W/"nope"' }],
      [
        { 'if-none-match': tagA, 'if-modified-since': new Date(1000).toUTCString() },
        { 'if-none-match': tagB, 'if-modified-since': new Date(1000).toUTCString() },
      ],
    ];
    for (const [ha, hb] of cases) {
      for (const path of ['/', '/dated']) {
        const fixA = { ...ha };
        const fixB = { ...hb };
        if (path === '/dated' && fixA['if-none-match'] === tagA) {
          fixA['if-none-match'] = datedA;
          fixB['if-none-match'] = datedB;
        }
        for (const method of ['GET', 'HEAD']) {
          const ra = await request(a.url + path, { method, headers: fixA });
          const rb = await request(b.url + path, { method, headers: fixB });
          assert.equal(ra.status, rb.status, `${method} ${path} ${JSON.stringify(ha)}`);
          assert.equal(ra.body.length, rb.body.length);
        }
      }
    }
  });
}
