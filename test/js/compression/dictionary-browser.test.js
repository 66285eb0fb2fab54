'use strict';
// A real browser takes the dictionary and renders a dcz page: Debian's chromium, headless, over
// the DevTools protocol (test/js/helpers/chromium.js). It loads a page from http://localhost (a
// potentially trustworthy origin: chromium keeps dictionaries only for those), finds the
// dictionary through the Link header, fetches and stores it, then asks for the next page with
// Available-Dictionary and dcz, receives `Content-Encoding: dcz` and renders it: the DOM's text is
// the page's. Once over HTTP/1.1 (Express, compression({ dictionary: true })), once over HTTP/2
// with TLS (Fastify with http2 and https, fastifyCompress({ dictionary: true }); a self-signed
// certificate made now, trusted by its key's hash with --ignore-certificate-errors-spki-list).
// Skipped with the reason only where chromium is missing or cannot start.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const express = require('express53');
const Fastify = require('fastify');
const compression = require('../../../lib/express/compression');
const { fastifyCompress } = require('../../../lib/fastify');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const { launch } = require('../helpers/chromium');
const { createSite } = require('../helpers/dictionary-site');

const site = createSite({ seed: 31 });
const TITLE_EXPRESSION = "document.getElementById('title').textContent";
const expectedTitle = (n) => /<h1 id="title">([^<]*)<\/h1>/.exec(site.page(n))[1];

// What the server saw and answered, per request.
function recorder() {
  const log = [];
  return {
    log,
    record(url, headers, encoding) {
      log.push({
        url,
        availableDictionary: headers['available-dictionary'],
        acceptEncoding: headers['accept-encoding'],
        encoding,
      });
    },
  };
}

function selfSignedCertificate() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  try {
    const run = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-days',
      '1',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ]);
    if (run.status !== 0) return null;
    const cert = fs.readFileSync(path.join(dir, 'cert.pem'));
    const key = fs.readFileSync(path.join(dir, 'key.pem'));
    const spki = crypto.createPublicKey(cert).export({ type: 'spki', format: 'der' });
    return { cert, key, spkiHash: crypto.createHash('sha256').update(spki).digest('base64') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The dictionary is built off the event loop once the warm-up pages are in: waits until a page
// announces it (its Link), so the browser's first page does.
async function announced(link) {
  const until = Date.now() + 20000;
  while (!(await link())) {
    assert.ok(Date.now() < until, 'no dictionary announced after the warm-up pages');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Warms the server (its dictionary is learned from public pages), then drives the browser: page 1,
// until the dictionary was fetched, then later pages until one comes back as dcz.
async function browse(t, origin, log, flags, warm) {
  const launched = await launch(flags);
  if (launched.skip) return t.skip(launched.skip);
  const { page } = launched.browser;
  const encodings = new Map();
  page.on('Network.responseReceived', ({ response }) => {
    const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    encodings.set(response.url, { encoding: headers['content-encoding'], protocol: response.protocol });
  });
  try {
    await warm();
    await page.navigate(`${origin}/page/1`);
    assert.equal(await page.evaluate(TITLE_EXPRESSION), expectedTitle(1));
    const until = Date.now() + 20000;
    while (!log.some((entry) => entry.url.startsWith('/_ssr-native/dictionary/'))) {
      assert.ok(Date.now() < until, 'the browser never fetched the dictionary');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let n = 2; ; n++) {
      await new Promise((resolve) => setTimeout(resolve, 500)); // the dictionary is stored once fetched
      await page.navigate(`${origin}/page/${n}`);
      const seen = encodings.get(`${origin}/page/${n}`);
      assert.ok(seen, `no response seen for page ${n}`);
      assert.equal(await page.evaluate(TITLE_EXPRESSION), expectedTitle(n));
      if (seen.encoding === 'dcz') {
        const served = log.filter((entry) => entry.url === `/page/${n}`).pop();
        assert.match(served.availableDictionary, /^:[A-Za-z0-9+/]{43}=:$/);
        assert.match(served.acceptEncoding, /\bdcz\b/);
        assert.equal(served.encoding, 'dcz');
        // the rest of the page rendered too: its last card's price and the footer
        const text = await page.evaluate('document.body.innerText');
        assert.ok(text.includes('2026 Shop, Inc'), 'the footer is rendered');
        const cards = await page.evaluate("document.querySelectorAll('.card').length");
        assert.equal(cards, (site.page(n).match(/class="card /g) || []).length);
        return seen.protocol;
      }
      assert.ok(Date.now() < until, `no dcz answer by page ${n} (last: ${seen.encoding})`);
    }
  } finally {
    await launched.browser.close();
  }
}

test(
  'chromium over HTTP/1.1 on localhost: dictionary fetched, next page dcz, rendered',
  {
    skip: available ? false : unavailableReason,
    timeout: 120000,
  },
  async (t) => {
    const { log, record } = recorder();
    const app = express();
    app.use((req, res, next) => {
      res.on('finish', () => record(req.url, req.headers, res.getHeader('content-encoding')));
      next();
    });
    app.use(compression({ dictionary: { minPages: 32 } }));
    app.get('/page/:n', (req, res) => {
      res.set('Cache-Control', 'public, max-age=60');
      res.type('html').send(site.page(Number(req.params.n)));
    });
    const server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const origin = `http://localhost:${server.address().port}`;
    try {
      const protocol = await browse(t, origin, log, ['--host-resolver-rules=MAP localhost 127.0.0.1'], async () => {
        for (let n = 100; n < 136; n++) await fetch(`http://127.0.0.1:${server.address().port}/page/${n}`);
        await announced(async () =>
          (await fetch(`http://127.0.0.1:${server.address().port}/page/100`)).headers.get('link'),
        );
      });
      if (protocol !== undefined) assert.equal(protocol, 'http/1.1');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
);

test(
  'chromium over HTTP/2 with TLS: dictionary fetched, next page dcz, rendered',
  {
    skip: available ? false : unavailableReason,
    timeout: 120000,
  },
  async (t) => {
    const tls = selfSignedCertificate();
    if (tls === null) return t.skip('openssl cannot make a certificate here');
    const { log, record } = recorder();
    const app = Fastify({ http2: true, https: { key: tls.key, cert: tls.cert } });
    app.addHook('onResponse', (request, reply, done) => {
      record(request.url, request.headers, reply.getHeader('content-encoding'));
      done();
    });
    await app.register(fastifyCompress, { dictionary: { minPages: 32 } });
    app.get('/page/:n', (request, reply) => {
      reply.type('text/html').header('Cache-Control', 'public, max-age=60');
      reply.send(site.page(Number(request.params.n)));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = app.server.address().port;
    const origin = `https://localhost:${port}`;
    try {
      const flags = [
        '--host-resolver-rules=MAP localhost 127.0.0.1',
        `--ignore-certificate-errors-spki-list=${tls.spkiHash}`,
      ];
      const protocol = await browse(t, origin, log, flags, async () => {
        for (let n = 100; n < 136; n++) await app.inject({ url: `/page/${n}` });
        await announced(async () => (await app.inject({ url: '/page/100' })).headers.link);
      });
      if (protocol !== undefined) assert.equal(protocol, 'h2');
    } finally {
      await app.close();
    }
  },
);
