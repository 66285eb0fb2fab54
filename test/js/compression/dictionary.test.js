'use strict';
// Compression Dictionary Transport (RFC 9842) in ssr-native/compression (Express) with
// `dictionary: true`, and the pieces under it:
// - a dictionary is learned from the site's public HTML and served at its own path with
//   Use-As-Dictionary; HTML answers announce it with Link; a request naming its SHA-256 in
//   Available-Dictionary with dcz in Accept-Encoding gets `Content-Encoding: dcz` (the 40-byte
//   header, then a zstd frame against the dictionary: decoded here by the addon and by the zstd
//   command line tool when it is installed) and `Vary: Accept-Encoding, Available-Dictionary`;
// - no private response's bytes ever reach the dictionary: per-user pages carrying a secret
//   (Cache-Control private, no-store, none, Set-Cookie, a request with Authorization or a Cookie
//   without public) are requested beside the public ones, more often, on many URLs;
// - a wrong, unknown, huge or malformed Available-Dictionary gets the usual coding; the
//   dictionary's path reads no file; a supplied dictionary (Buffer, file) is used as is; pages
//   that drift get a new dictionary with a new hash, the previous one still answered;
// - the content cache keeps each dictionary's compressed pages apart; metrics count the hits.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const express = require('express53');
const compression = require('../../../lib/express/compression');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { acceptsDcz } = require('../../../lib/compression/dictionary-transport');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const native = require('../../../lib/native');
const client = require('prom-client');
const { registerMetrics } = require('../../../lib/metrics');
const { request } = require('../helpers/http');
const { createSite } = require('../helpers/dictionary-site');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const DCZ_MAGIC = Buffer.from([0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00]);
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';
const hasZstdCli = spawnSync('zstd', ['--version']).status === 0;

function listen(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

async function waitFor(predicate, what, ms = 10000) {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest();
}

function decodeDcz(dictionary, body) {
  return native.dczDecode(dictionary, sha256(dictionary), body, 64 * 1024 * 1024);
}

// The zstd tool decodes the frame after the 40-byte header on its own: an outside check of the framing.
function decodeWithZstdCli(dictionary, body) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcz-'));
  try {
    fs.writeFileSync(path.join(dir, 'dict'), dictionary);
    fs.writeFileSync(path.join(dir, 'body.zst'), body.subarray(40));
    const run = spawnSync('zstd', ['-q', '-d', '-D', path.join(dir, 'dict'), '-c', path.join(dir, 'body.zst')]);
    assert.equal(run.status, 0, String(run.stderr));
    return run.stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function siteApp(middleware, site, { cacheControl = 'public, max-age=60' } = {}) {
  const app = express();
  app.use(middleware);
  app.get('/page/:n', (req, res) => {
    res.set('Cache-Control', cacheControl);
    res.type('html').send(site.page(Number(req.params.n)));
  });
  return app;
}

async function learnedDictionary(url, middleware, pages = 36) {
  for (let n = 0; n < pages; n++) await request(`${url}/page/${n}`);
  await waitFor(() => middleware.dictionary.current !== null, 'the dictionary');
  const link = (await request(`${url}/page/0`)).headers.link;
  const dictionaryPath = /<([^>]+)>; rel="compression-dictionary"/.exec(link)[1];
  const served = await request(`${url}${dictionaryPath}`);
  return { link, dictionaryPath, served, bytes: served.body };
}

test(
  'dictionary: learned from public pages, served with Use-As-Dictionary, pages answered as dcz',
  { skip },
  async () => {
    const site = createSite({ seed: 3 });
    const middleware = compression({ dictionary: { minPages: 32 } });
    const { url, close } = await listen(siteApp(middleware, site));
    try {
      const { link, dictionaryPath, served, bytes } = await learnedDictionary(url, middleware);
      assert.match(link, /^<\/_ssr-native\/dictionary\/[0-9a-f]{16}\.dict>; rel="compression-dictionary"$/);
      assert.equal(served.status, 200);
      assert.match(served.headers['use-as-dictionary'], /^match="\/\*", match-dest=\("document"\), id="[0-9a-f]{16}"$/);
      assert.match(served.headers['cache-control'], /public/);
      assert.ok(bytes.length > 1000 && bytes.length <= 128 * 1024, `dictionary of ${bytes.length} bytes`);
      assert.ok(dictionaryPath.includes(sha256(bytes).toString('hex').slice(0, 16)));
      // the shared layout is in it (so the privacy tests below can see a leak)
      assert.ok(bytes.includes('navbar-toggler-icon'));

      const hash = `:${sha256(bytes).toString('base64')}:`;
      const identity = Buffer.from(site.page(40));
      const answer = await request(`${url}/page/40`, {
        headers: { 'accept-encoding': ACCEPT, 'available-dictionary': hash },
      });
      assert.equal(answer.headers['content-encoding'], 'dcz');
      assert.equal(answer.headers.vary, 'Accept-Encoding, Available-Dictionary');
      assert.equal(Number(answer.headers['content-length']), answer.body.length);
      assert.deepEqual(answer.body.subarray(0, 8), DCZ_MAGIC);
      assert.deepEqual(answer.body.subarray(8, 40), sha256(bytes));
      assert.deepEqual(decodeDcz(bytes, answer.body), identity);
      if (hasZstdCli) assert.deepEqual(decodeWithZstdCli(bytes, answer.body), identity);
      const br = await request(`${url}/page/40`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(zlib.brotliDecompressSync(br.body), identity);
      assert.ok(answer.body.length < br.body.length / 2, `dcz ${answer.body.length} vs br ${br.body.length}`);

      // a repeat is a content-cache hit under this dictionary's key, the same bytes
      const compressions = middleware.cache.stats().compressions;
      const again = await request(`${url}/page/40`, {
        headers: { 'accept-encoding': ACCEPT, 'available-dictionary': hash },
      });
      assert.deepEqual(again.body, answer.body);
      assert.equal(middleware.cache.stats().compressions, compressions);
      const stats = middleware.dictionary.stats();
      assert.equal(stats.hits, 2);
      assert.equal(stats.bytesSaved, 2 * (identity.length - answer.body.length));
      // ssr-native/metrics exports them (source compression_dictionary)
      const registry = new client.Registry();
      registerMetrics(client, { registry });
      const scrape = await registry.metrics();
      const line = (name) =>
        scrape.split('\n').filter((l) => l.startsWith(`ssr_native_compression_dictionary_${name}`));
      assert.ok(
        line('hits_total').some((l) => l.endsWith(' 2')),
        line('hits_total').join('\n'),
      );
      assert.ok(
        line('bytes_saved_total').some((l) => l.endsWith(` ${stats.bytesSaved}`)),
        scrape,
      );
    } finally {
      await close();
    }
  },
);

test('dictionary: no private response ever reaches it', { skip }, async () => {
  const site = createSite({ seed: 4 });
  const middleware = compression({ dictionary: { minPages: 32, sampleEvery: 1, rebuildAfter: 4, rebuildInterval: 0 } });
  const app = express();
  app.use(middleware);
  const secrets = {
    private: 'SECRET-private-7f3a',
    nostore: 'SECRET-nostore-1b9c',
    none: 'SECRET-nocc-5d2e',
    cookie: 'SECRET-setcookie-8a41',
    auth: 'SECRET-authorization-c6d0',
    cookieRequest: 'SECRET-cookie-request-e39b',
    maxAgeZero: 'SECRET-maxage0-44aa',
    noCache: 'SECRET-nocache-91f0',
    varyCookie: 'SECRET-varycookie-2bd7',
  };
  const personal = (secret) => `<div class="alert">Signed in as <b>${secret}</b></div>`;
  app.get('/page/:n', (req, res) => {
    res.set('Cache-Control', 'public, max-age=60');
    res.type('html').send(site.page(Number(req.params.n)));
  });
  app.get('/u/:kind/:n', (req, res) => {
    const kind = req.params.kind;
    if (kind === 'private') res.set('Cache-Control', 'private, max-age=60');
    if (kind === 'nostore') res.set('Cache-Control', 'no-store');
    if (kind === 'cookie') {
      res.set('Cache-Control', 'public, max-age=60');
      res.cookie('sid', 'abc');
    }
    if (kind === 'auth' || kind === 'cookieRequest') res.set('Cache-Control', 'max-age=60');
    if (kind === 'maxAgeZero') res.set('Cache-Control', 'max-age=0');
    if (kind === 'noCache') res.set('Cache-Control', 'public, no-cache');
    if (kind === 'varyCookie') {
      res.set('Cache-Control', 'max-age=60');
      res.vary('Cookie');
    }
    res.type('html').send(site.page(100 + Number(req.params.n), personal(secrets[kind])));
  });
  const { url, close } = await listen(app);
  try {
    const requestHeaders = (kind) => {
      if (kind === 'auth') return { authorization: 'Bearer user-token' };
      if (kind === 'cookieRequest') return { cookie: 'sid=abc' };
      return {};
    };
    // per-user pages first and more often than public ones, on many URLs each
    for (let round = 0; round < 3; round++) {
      for (const kind of Object.keys(secrets)) {
        for (let n = 0; n < 6; n++) await request(`${url}/u/${kind}/${n}`, { headers: requestHeaders(kind) });
      }
      for (let n = 0; n < 12; n++) await request(`${url}/page/${round * 12 + n}`);
    }
    await waitFor(() => middleware.dictionary.current !== null && !middleware.dictionary.learner.building, 'builds');
    const { bytes } = await learnedDictionary(url, middleware, 0);
    assert.ok(bytes.includes('navbar-toggler-icon'), 'the public layout is learned');
    for (const [kind, secret] of Object.entries(secrets)) {
      assert.ok(!bytes.includes(secret), `the ${kind} page's secret is in the dictionary`);
      assert.ok(!bytes.includes('Signed in as'), `a ${kind} page's content is in the dictionary`);
    }
    assert.ok(middleware.dictionary.stats().refused >= 9 * 6);
  } finally {
    await close();
  }
});

test(
  'dictionary: a response the sharing rule refuses is never dcz against a learned one, unless its route opts in',
  { skip },
  async () => {
    const site = createSite({ seed: 11 });
    const personal = '<div class="alert">Signed in as <b>SECRET-dcz-5c1e</b></div>';
    const kinds = {
      private: (req, res) => res.set('Cache-Control', 'private, max-age=60'),
      nostore: (req, res) => res.set('Cache-Control', 'no-store'),
      none: () => {},
      setCookie: (req, res) => res.set('Cache-Control', 'public, max-age=60').cookie('sid', 'abc'),
      revalidate: (req, res) => res.set('Cache-Control', 'public, max-age=0, must-revalidate'),
    };
    const credentials = { cookie: { cookie: 'sid=abc' }, authorization: { authorization: 'Bearer t' } };
    for (const privateResponses of [undefined, (req) => req.url.startsWith('/account/')]) {
      const middleware = compression({ dictionary: { minPages: 32, privateResponses } });
      const app = siteApp(middleware, site);
      app.get(['/u/:kind/:n', '/account/:kind/:n'], (req, res) => {
        if (kinds[req.params.kind]) kinds[req.params.kind](req, res);
        else res.set('Cache-Control', 'public, max-age=60');
        res.type('html').send(site.page(200 + Number(req.params.n), personal));
      });
      const { url, close } = await listen(app);
      try {
        const { bytes } = await learnedDictionary(url, middleware);
        const hash = `:${sha256(bytes).toString('base64')}:`;
        const cases = [
          ...Object.keys(kinds).map((kind) => [kind, {}]),
          ...Object.entries(credentials).map(([kind, headers]) => [kind, headers]),
        ];
        for (const [i, [kind, headers]] of cases.entries()) {
          for (const base of ['/u', '/account']) {
            const answer = await request(`${url}${base}/${kind}/${i}`, {
              headers: { ...headers, 'accept-encoding': ACCEPT, 'available-dictionary': hash },
            });
            const optedIn = privateResponses !== undefined && base === '/account';
            const where = `${base}/${kind} (privateResponses ${privateResponses ? 'set' : 'unset'})`;
            if (optedIn) {
              assert.equal(answer.headers['content-encoding'], 'dcz', where);
              assert.deepEqual(decodeDcz(bytes, answer.body), Buffer.from(site.page(200 + i, personal)));
            } else {
              assert.equal(answer.headers['content-encoding'], 'br', where);
              assert.deepEqual(zlib.brotliDecompressSync(answer.body), Buffer.from(site.page(200 + i, personal)));
            }
          }
        }
        // a public page is still dcz; the refusals are counted
        const open = await request(`${url}/page/50`, {
          headers: { 'accept-encoding': ACCEPT, 'available-dictionary': hash },
        });
        assert.equal(open.headers['content-encoding'], 'dcz');
        const refused = middleware.dictionary.stats().privateRefused;
        assert.equal(refused, privateResponses === undefined ? 2 * cases.length : cases.length);
      } finally {
        await close();
      }
    }

    // a supplied dictionary is the app's own bytes, not steered by visitors: it answers them all
    const supplied = Buffer.from(site.page(1000));
    const middleware = compression({ dictionary: supplied });
    const app = express();
    app.use(middleware);
    app.get('/me', (req, res) =>
      res.set('Cache-Control', 'private, no-store').type('html').send(site.page(5, personal)),
    );
    const { url, close } = await listen(app);
    try {
      const answer = await request(`${url}/me`, {
        headers: {
          cookie: 'sid=1',
          'accept-encoding': ACCEPT,
          'available-dictionary': `:${sha256(supplied).toString('base64')}:`,
        },
      });
      assert.equal(answer.headers['content-encoding'], 'dcz');
    } finally {
      await close();
    }
  },
);

test('dictionary: sampled over 32 distinct paths, the query not counted', { skip }, async () => {
  const site = createSite({ seed: 12 });
  const middleware = compression({ dictionary: {} });
  const app = express();
  app.use(middleware);
  app.get('/page/:n', (req, res) => {
    res.set('Cache-Control', 'public, max-age=60');
    res.type('html').send(site.page(Number(req.params.n), `<p>You searched ${String(req.query.q).slice(0, 40)}</p>`));
  });
  const { url, close } = await listen(app);
  try {
    // an attacker's many spellings of one page are one sample, the newest
    for (let q = 0; q < 100; q++) await request(`${url}/page/1?q=attacker-${q}`);
    for (let n = 2; n <= 31; n++) await request(`${url}/page/${n}`);
    assert.equal(middleware.dictionary.learner.stats().samples, 31);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(middleware.dictionary.current, null, 'built from fewer than 32 distinct paths');
    await request(`${url}/page/32?q=x`);
    await waitFor(() => middleware.dictionary.current !== null, 'the dictionary');
    assert.equal(middleware.dictionary.stats().sampled, 32);
  } finally {
    await close();
  }
  assert.throws(() => compression({ dictionary: { minPages: 31 } }), RangeError);
  assert.throws(() => compression({ dictionary: { minPages: 64, maxSamples: 48 } }), RangeError);
  assert.throws(() => compression({ dictionary: { privateResponses: 'yes' } }), TypeError);
});

test('dictionary: a warning and counts by reason when nothing can be learned', { skip }, async () => {
  const site = createSite({ seed: 13 });
  const middleware = compression({ dictionary: true });
  const app = express();
  app.use(middleware);
  // an app that sends no Cache-Control: nothing is shareable, so nothing is learned
  app.get('/page/:n', (req, res) => res.type('html').send(site.page(Number(req.params.n))));
  const { url, close } = await listen(app);
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    for (let n = 0; n < 300; n++) await request(`${url}/page/${n}`);
    await new Promise((resolve) => setImmediate(resolve));
    const stats = middleware.dictionary.stats();
    assert.equal(stats.sampled, 0);
    assert.equal(stats.refused, 300);
    assert.deepEqual(stats.refusedBy, { 'no-lifetime': 300 });
    const ours = warnings.filter((w) => w.code === 'SSR_NATIVE_DICTIONARY_NOTHING_TO_LEARN');
    assert.equal(ours.length, 1, 'warned once');
    assert.match(ours[0].message, /"no-lifetime": 256/);
  } finally {
    process.off('warning', onWarning);
    await close();
  }
});

test(
  'dictionary: a wrong, unknown, huge or malformed Available-Dictionary gets the usual coding',
  { skip },
  async () => {
    const site = createSite({ seed: 5 });
    const middleware = compression({ dictionary: { minPages: 32 } });
    const { url, close } = await listen(siteApp(middleware, site));
    try {
      const { bytes } = await learnedDictionary(url, middleware);
      const good = `:${sha256(bytes).toString('base64')}:`;
      const identity = Buffer.from(site.page(50));
      const cases = [
        ['unknown hash', { 'available-dictionary': `:${sha256(Buffer.from('other')).toString('base64')}:` }],
        ['no colons', { 'available-dictionary': sha256(bytes).toString('base64') }],
        ['hex', { 'available-dictionary': sha256(bytes).toString('hex') }],
        ['huge', { 'available-dictionary': ':' + 'A'.repeat(8 * 1024) + ':' }],
        ['empty', { 'available-dictionary': '' }],
        ['twice', { 'available-dictionary': [good, good] }],
        ['dcz refused', { 'available-dictionary': good, 'accept-encoding': 'gzip, br, dcz;q=0' }],
        ['no dcz', { 'available-dictionary': good, 'accept-encoding': 'gzip, br' }],
        ['huge accept-encoding', { 'available-dictionary': good, 'accept-encoding': 'x, '.repeat(2000) + 'dcz, br' }],
      ];
      for (const [name, headers] of cases) {
        const answer = await request(`${url}/page/50`, { headers: { 'accept-encoding': ACCEPT, ...headers } });
        assert.equal(answer.status, 200, name);
        assert.notEqual(answer.headers['content-encoding'], 'dcz', name);
        const coding = answer.headers['content-encoding'];
        const decoded =
          coding === 'br'
            ? zlib.brotliDecompressSync(answer.body)
            : coding === 'gzip'
              ? zlib.gunzipSync(answer.body)
              : answer.body;
        assert.deepEqual(decoded, identity, name);
      }
      assert.ok(middleware.dictionary.stats().unknownDictionary >= 1);
    } finally {
      await close();
    }
  },
);

test('dictionary: its path serves only the dictionary, never a file', { skip }, async () => {
  const site = createSite({ seed: 6 });
  const middleware = compression({ dictionary: { minPages: 32 } });
  const { url, close } = await listen(siteApp(middleware, site));
  try {
    const { dictionaryPath, bytes } = await learnedDictionary(url, middleware);
    for (const probe of [
      '/_ssr-native/dictionary/../../../../etc/passwd',
      '/_ssr-native/dictionary/%2e%2e/%2e%2e/etc/passwd',
      '/_ssr-native/dictionary/package.json',
      '/_ssr-native/dictionary/',
      `${dictionaryPath}/../../package.json`,
      `${dictionaryPath.slice(0, -5)}0.dict`,
    ]) {
      const answer = await request(`${url}${probe}`);
      assert.equal(answer.status, 404, probe);
      assert.ok(!answer.body.includes('root:') && !answer.body.includes('"name"'), probe);
    }
    const head = await request(`${url}${dictionaryPath}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers['content-length']), bytes.length);
    assert.equal((await request(`${url}${dictionaryPath}?v=1`)).status, 200);
    assert.equal((await request(`${url}${dictionaryPath}`, { method: 'POST' })).status, 405);
  } finally {
    await close();
  }
});

test(
  'dictionary: a supplied Buffer or file is used at once; pages that drift get a new dictionary',
  { skip },
  async () => {
    const site = createSite({ seed: 7 });
    const supplied = Buffer.from(site.page(1000));
    const file = path.join(os.tmpdir(), `dict-${process.pid}.bin`);
    fs.writeFileSync(file, supplied);
    try {
      for (const option of [supplied, file, { source: file, match: '/page/*' }]) {
        const middleware = compression({ dictionary: option });
        const { url, close } = await listen(siteApp(middleware, site));
        try {
          const page = await request(`${url}/page/3`);
          const dictionaryPath = /<([^>]+)>/.exec(page.headers.link)[1];
          const served = await request(`${url}${dictionaryPath}`);
          assert.deepEqual(served.body, supplied);
          if (typeof option === 'object' && !Buffer.isBuffer(option)) {
            assert.match(served.headers['use-as-dictionary'], /^match="\/page\/\*"/);
          }
          const answer = await request(`${url}/page/3`, {
            headers: { 'accept-encoding': ACCEPT, 'available-dictionary': `:${sha256(supplied).toString('base64')}:` },
          });
          assert.equal(answer.headers['content-encoding'], 'dcz');
          assert.deepEqual(decodeDcz(supplied, answer.body), Buffer.from(site.page(3)));
        } finally {
          await close();
        }
      }
    } finally {
      fs.rmSync(file, { force: true });
    }

    // drift: the site changes its layout; the learner relearns and publishes a new hash
    const before = createSite({ seed: 8, title: 'Before' });
    const after = createSite({ seed: 8, title: 'After', css: before.css.split('').reverse().join('') });
    let current = before;
    const middleware = compression({
      dictionary: { minPages: 32, sampleEvery: 1, rebuildAfter: 6, rebuildInterval: 0 },
    });
    const app = express();
    app.use(middleware);
    app.get('/page/:n', (req, res) => {
      res.set('Cache-Control', 'public, max-age=60');
      res.type('html').send(current.page(Number(req.params.n)));
    });
    const { url, close } = await listen(app);
    try {
      const first = await learnedDictionary(url, middleware);
      current = after;
      // the new pages keep coming until the learner has seen enough of them to switch
      const until = Date.now() + 10000;
      for (let n = 0; middleware.dictionary.current.path === first.dictionaryPath; n = (n + 1) % 50) {
        assert.ok(Date.now() < until, 'timed out waiting for a new dictionary');
        await request(`${url}/page/${n}`);
      }
      const second = await learnedDictionary(url, middleware, 0);
      assert.notEqual(second.dictionaryPath, first.dictionaryPath);
      assert.ok(second.bytes.includes('After'));
      // a client still holding the first one gets dcz against it
      const old = await request(`${url}/page/60`, {
        headers: { 'accept-encoding': ACCEPT, 'available-dictionary': `:${sha256(first.bytes).toString('base64')}:` },
      });
      assert.equal(old.headers['content-encoding'], 'dcz');
      assert.deepEqual(decodeDcz(first.bytes, old.body), Buffer.from(after.page(60)));
    } finally {
      await close();
    }
  },
);

test('dictionary: each dictionary has its own content-cache entries', { skip }, async () => {
  const site = createSite({ seed: 9 });
  const cache = new ContentCache({ minUses: 1 });
  const a = Buffer.from(site.page(1));
  const b = Buffer.from(site.page(2));
  const apps = [compression({ cache, dictionary: a }), compression({ cache, dictionary: b })];
  const body = Buffer.from(site.page(3));
  for (const [i, middleware] of apps.entries()) {
    const { url, close } = await listen(siteApp(middleware, site));
    try {
      const dictionary = i === 0 ? a : b;
      const answer = await request(`${url}/page/3`, {
        headers: { 'accept-encoding': 'dcz', 'available-dictionary': `:${sha256(dictionary).toString('base64')}:` },
      });
      assert.equal(answer.headers['content-encoding'], 'dcz');
      assert.deepEqual(decodeDcz(dictionary, answer.body), body);
    } finally {
      await close();
    }
  }
  assert.equal(cache.stats().compressions, 2);
});

test(
  'dictionary: gzip and deflate still answer (the option never reaches zlib as a preset dictionary)',
  { skip },
  async () => {
    const site = createSite({ seed: 10 });
    for (const option of [true, Buffer.from(site.page(1))]) {
      const middleware = compression({ dictionary: option });
      const { url, close } = await listen(siteApp(middleware, site));
      try {
        const identity = Buffer.from(site.page(2));
        const gzip = await request(`${url}/page/2`, { headers: { 'accept-encoding': 'gzip' } });
        assert.equal(gzip.headers['content-encoding'], 'gzip');
        assert.deepEqual(zlib.gunzipSync(gzip.body), identity);
        const deflate = await request(`${url}/page/2`, { headers: { 'accept-encoding': 'deflate' } });
        assert.equal(deflate.headers['content-encoding'], 'deflate');
        assert.deepEqual(zlib.inflateSync(deflate.body), identity);
      } finally {
        await close();
      }
    }
  },
);

test('dictionary: options are checked; Accept-Encoding parsing', () => {
  assert.throws(() => compression({ dictionary: 42 }), TypeError);
  assert.throws(() => compression({ dictionary: { match: 'no-slash' } }), TypeError);
  assert.throws(() => compression({ dictionary: { match: '/"quoted"' } }), TypeError);
  assert.throws(() => compression({ dictionary: { prefix: '/x' } }), TypeError);
  assert.throws(() => compression({ dictionary: { level: 30 } }), RangeError);
  assert.throws(() => compression({ dictionary: { maxBytes: 10 } }), RangeError);
  assert.throws(() => compression({ dictionary: '/nonexistent/dictionary.bin' }), /ENOENT/);
  assert.equal(compression().dictionary, null);
  assert.equal(acceptsDcz('gzip, dcz'), true);
  assert.equal(acceptsDcz('gzip, DCZ;q=0.5'), true);
  assert.equal(acceptsDcz('gzip, dcz;q=0'), false);
  assert.equal(acceptsDcz('gzip, dczx'), false);
  assert.equal(acceptsDcz(undefined), false);
  assert.equal(acceptsDcz('dcz,'.repeat(1000)), false);
});
