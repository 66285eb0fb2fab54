'use strict';
// npm run test:angular: ssr-native in real Angular apps, end to end. First the Angular 22 app
// (test/fixtures/angular22-app: `ng new --ssr` with the README's server.ts, on Node 24;
// scripts/test-angular22.js), then the Angular 21 app (test/fixtures/angular-app) here: packs ssr-native, installs the app's dependencies and the tarball as a user would, builds the
// app (prerendering runs in worker threads that load the server bundle and so the addon), starts
// its servers on loopback and checks what the README promises. Then the CommonEngine patch
// against @angular/ssr 17-22 and, for 21 and 22, critical CSS against their own processors
// (scripts/test-angular-versions.js), and critical CSS proven by paint in Chromium on a seeded
// 50-page sample of their corpus, ours and Angular 22's runtime (scripts/paint-check.js).
//   --no-paint    skip the paint check
//   --no-install  reuse the fixture's node_modules      --no-build  reuse its dist/
//   --no-versions skip the @angular/ssr 17-22 checks    --no-angular22 skip the Angular 22 app
const assert = require('assert/strict');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { describe, test, before, after } = require('node:test');
const fixture = require('./angular-fixture');
const { compareWriters, crcTag } = require('./angular-writer-diff');
const { angularInlined, assertSameDocument } = require('./angular-critical-css');

const args = new Set(process.argv.slice(2));
const servers = {};
let buildOutput = '';
const timings = {};

if (!args.has('--no-angular22')) require('./test-angular22').register(args);

describe(`Angular 21 (AppEngine and CommonEngine) on Node ${process.versions.node}`, () => {
  before(
    async () => {
      if (!args.has('--no-install') || !fixture.isInstalled()) timings.install = fixture.install();
      if (!args.has('--no-build') || !fixture.isBuilt()) {
        try {
          const built = fixture.build();
          timings.build = built.seconds;
          buildOutput = built.output;
        } catch (err) {
          process.stderr.write(String(err.stdout || '') + String(err.stderr || ''));
          throw err;
        }
      }
      for (const name of fixture.SERVERS) servers[name] = await fixture.startServer(name);
    },
    { timeout: 20 * 60 * 1000 },
  );

  after(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    if (timings.install !== undefined) fixture.log(`install took ${timings.install.toFixed(1)} s`);
    if (timings.build !== undefined) fixture.log(`build took ${timings.build.toFixed(1)} s`);
  });

  // http.get, not fetch: fetch hides 304 details and adds its own conditional headers.
  function request(server, urlPath, { method = 'GET', headers = {} } = {}) {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: servers[server].port, path: urlPath, method, headers },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function builtAsset() {
    const name = fs.readdirSync(fixture.BROWSER).find((f) => /^main-.*\.js$/.test(f));
    assert.ok(name, 'main-*.js in dist/browser');
    return { urlPath: `/${name}`, bytes: fs.readFileSync(path.join(fixture.BROWSER, name)) };
  }

  async function expectEtagAnd304(server, urlPath) {
    const first = await request(server, urlPath);
    assert.equal(first.status, 200);
    assert.match(first.headers['content-type'], /^text\/html/);
    assert.equal(first.headers.etag, crcTag(first.body), `${server} ${urlPath}: the native ETag of the body`);
    for (const method of ['GET', 'HEAD']) {
      const again = await request(server, urlPath, { method, headers: { 'if-none-match': first.headers.etag } });
      assert.equal(again.status, 304, `${server} ${method} ${urlPath} with If-None-Match`);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers['content-type'], undefined);
    }
    const other = await request(server, urlPath, { headers: { 'if-none-match': 'W/"0-00000000"' } });
    assert.equal(other.status, 200);
    return first;
  }

  test('ng build prerenders / and /about with ssr-native external and loaded by the server bundle', () => {
    if (buildOutput) assert.match(buildOutput, /Prerendered 2 static routes/);
    const routes = JSON.parse(fs.readFileSync(path.join(fixture.DIST, 'prerendered-routes.json'), 'utf8')).routes;
    assert.deepEqual(Object.keys(routes).sort(), ['/', '/about']);
    for (const page of ['index.html', 'about/index.html']) {
      assert.match(fs.readFileSync(path.join(fixture.BROWSER, page), 'utf8'), /ng-server-context="ssg"/);
    }
    // externalDependencies kept the addon out of esbuild's bundle: the prerender workers, which
    // import server.mjs to answer their requests, loaded it from node_modules.
    const bundle = fs.readFileSync(fixture.SERVER_BUNDLE, 'utf8');
    assert.match(bundle, /from\s*"ssr-native"/);
    assert.match(bundle, /from\s*"ssr-native\/angular"/);
    // (the servers resolve it from the fixture's own package scope: node_modules, the tarball)
    const installed = path.join(fixture.APP, 'node_modules', 'ssr-native');
    assert.ok(!fs.lstatSync(installed).isSymbolicLink(), 'installed from the tarball, not linked');
    // Its addon is the shipped prebuild (or, where that does not load, the install script's build)
    // and it answers from the app's own folder.
    const binaries = ['prebuilds/linux-x64/node.napi.node', 'build/Release/ssr_native.node'];
    assert.ok(
      binaries.some((b) => fs.existsSync(path.join(installed, b))),
      `one of ${binaries} in ${installed}`,
    );
    const { execFileSync } = require('child_process');
    const tag = execFileSync(process.execPath, ['-p', "require('ssr-native').etag('123456789')"], {
      cwd: fixture.APP,
      encoding: 'utf8',
    }).trim();
    assert.equal(tag, 'W/"9-cbf43926"');
  });

  test('AppEngine + writeResponse: a server-rendered page gets the native ETag and 304s', async () => {
    const page = await expectEtagAnd304('app-engine', '/live');
    assert.match(page.body.toString(), /Live page \(server-rendered\)/);
    assert.match(page.body.toString(), /<p id="path">\/live<\/p>/);
    // the stock server (inlining off: angular.json) sends the same page, streamed, without any
    // ETag; ours is that page with the critical CSS Angular's processor inlines
    const stock = await request('stock-app-engine', '/live');
    assert.equal(stock.status, 200);
    assert.equal(stock.headers.etag, undefined);
    assertSameDocument(page.body.toString(), await angularInlined(stock.body.toString()), '/live');
  });

  test('AppEngine + criticalCss: a prerendered page gets its critical CSS once, a strong tag of the bytes sent and 304s', async () => {
    const page = await request('app-engine', '/about');
    assert.equal(page.status, 200);
    // Angular's own tag is a strong sha256 of the page as built; the page sent is inlined, so its
    // tag is the (strong) CRC-32 of the bytes sent
    assert.equal(page.headers.etag, crcTag(page.body).slice(2));
    const onDisk = fs.readFileSync(path.join(fixture.BROWSER, 'about', 'index.html'), 'utf8');
    assertSameDocument(page.body.toString(), await angularInlined(onDisk), '/about');
    const before = await servers['app-engine'].criticalCss();
    for (let i = 0; i < 5; i++) assert.ok((await request('app-engine', '/about')).body.equals(page.body));
    const after = await servers['app-engine'].criticalCss();
    assert.equal(after.pages, before.pages, 'repeats come from the memo, not the engine');
    assert.equal(after.memoHits - before.memoHits, 5);
    const weak = await request('app-engine', '/about', { headers: { 'if-none-match': `W/${page.headers.etag}` } });
    assert.equal(weak.status, 304);
    const stockWeak = await request('stock-app-engine', '/about', {
      headers: { 'if-none-match': `W/${page.headers.etag}` },
    });
    assert.equal(stockWeak.status, 200); // Angular compares tags with ===
  });

  test('both servers serve assets from serveStatic (content CRC-32 ETag, not size-mtime)', async () => {
    const asset = builtAsset();
    for (const server of ['app-engine', 'common-engine']) {
      const res = await request(server, asset.urlPath);
      assert.equal(res.status, 200);
      assert.equal(res.headers.etag, crcTag(asset.bytes), server);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000');
      assert.ok(res.body.equals(asset.bytes));
      const again = await request(server, asset.urlPath, { headers: { 'if-none-match': res.headers.etag } });
      assert.equal(again.status, 304);
    }
    const stock = await request('stock-common-engine', asset.urlPath);
    assert.match(stock.headers.etag, /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    assert.notEqual(stock.headers.etag, crcTag(asset.bytes));
  });

  test('CommonEngine + cacheCommonEngine: each prerendered page is read from disk once', async () => {
    const before = await servers['common-engine'].stats();
    const pages = { '/': 'index.html', '/about': 'about/index.html' };
    const rounds = [];
    for (let i = 0; i < 10; i++) {
      // concurrent requests too: a page asked twice at once is still read once
      rounds.push(
        Promise.all(Object.keys(pages).flatMap((p) => [request('common-engine', p), request('common-engine', p)])),
      );
    }
    const results = (await Promise.all(rounds)).flat();
    for (const res of results) assert.equal(res.status, 200);
    for (const [urlPath, file] of Object.entries(pages)) {
      const onDisk = fs.readFileSync(path.join(fixture.BROWSER, file), 'utf8');
      const stock = await request('stock-common-engine', urlPath);
      const ours = await request('common-engine', urlPath);
      assertSameDocument(ours.body.toString(), await angularInlined(onDisk), urlPath);
      assert.equal(stock.body.toString(), onDisk); // CommonEngine sends prerendered pages as built
    }
    const after = await servers['common-engine'].stats();
    // 42 requests: one read per page, every other one answered from memory (or from the one read
    // in flight when it came)
    const seen = JSON.stringify({ before, after });
    assert.equal(after.reads - before.reads, before.reads === 0 ? 2 : 0, seen);
    const fromMemory = after.hits + after.shared - before.hits - before.shared;
    assert.equal(fromMemory, 42 - (after.reads - before.reads), seen);
  });

  test('CommonEngine + cacheCommonEngine: ETag and 304 on prerendered and server-rendered pages', async () => {
    await expectEtagAnd304('common-engine', '/');
    const live = await expectEtagAnd304('common-engine', '/live');
    // rendering itself is untouched, and the critical CSS is what Angular's CommonEngine inlines:
    // the same page as the stock CommonEngine server sends (render()'s inlineCriticalCss default)
    const stock = await request('stock-common-engine', '/live');
    assertSameDocument(live.body.toString(), stock.body.toString(), 'CommonEngine /live');
    const stats = await servers['common-engine'].stats();
    assert.ok(stats.notPrerendered >= 1);
  });

  test('CommonEngine + cacheCommonEngine: a page edited on disk is served fresh', async () => {
    const file = path.join(fixture.BROWSER, 'about', 'index.html');
    const original = fs.readFileSync(file, 'utf8');
    await request('common-engine', '/about'); // cached
    const readsBefore = (await servers['common-engine'].stats()).reads;
    const edited = original.replace('About page (prerendered)', 'About page (edited on disk)');
    assert.notEqual(edited, original);
    try {
      fs.writeFileSync(file, edited);
      const start = Date.now();
      let body = '';
      while (Date.now() - start < 5000) {
        body = (await request('common-engine', '/about')).body.toString();
        if (body.includes('About page (edited on disk)')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.match(body, /About page \(edited on disk\)/, 'the edited page within 5 s');
      const expected = body;
      assertSameDocument(body, await angularInlined(edited), 'the edited /about');
      fixture.log(`edited page served after ${Date.now() - start} ms`);
      const stats = await servers['common-engine'].stats();
      assert.equal(stats.reads, readsBefore + 1);
      for (let i = 0; i < 5; i++) assert.equal((await request('common-engine', '/about')).body.toString(), expected);
      assert.equal((await servers['common-engine'].stats()).reads, readsBefore + 1);
    } finally {
      fs.writeFileSync(file, original);
    }
  });

  // The response cache (ssr-native/cache) in front of the AppEngine handler (src/server.ts) and of
  // the CommonEngine render (src/servers/common-engine.ts). /products/:id declares its
  // Cache-Control in app.routes.server.ts; /news/:id sets its own with RESPONSE_INIT (fresh for 1 s,
  // then stale-while-revalidate). Each cacheable page shows its render number in the server process
  // (src/app/pages.ts), so renders are counted from what Angular rendered, not only from stats().
  const PRODUCT_CACHE_CONTROL = 'public, s-maxage=60, stale-while-revalidate=600';
  const NEWS_CACHE_CONTROL = 'public, s-maxage=1, stale-while-revalidate=30';
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function renderOf(res) {
    const m = /id="render"[^>]*>render (\d+)</.exec(res.body.toString());
    assert.ok(m, `a render number in ${res.body.toString().slice(0, 200)}`);
    return Number(m[1]);
  }

  let probes = 0;
  // Renders that happened while fn ran: a never-requested URL before and after gives the count.
  async function rendersDuring(server, fn) {
    const first = renderOf(await request(server, `/products/probe-${probes++}`));
    await fn();
    const last = renderOf(await request(server, `/products/probe-${probes++}`));
    return last - first - 1;
  }

  async function cacheStats(server) {
    const stats = await servers[server].cache('stats');
    assert.ok(stats, `${server} has a response cache`);
    return stats;
  }

  for (const server of ['app-engine', 'common-engine']) {
    test(`${server} + responseCache: the route's Cache-Control makes later requests hits (Age, no render)`, async () => {
      const url = `/products/hit-${server}`;
      const first = await request(server, url);
      assert.equal(first.status, 200);
      assert.match(first.body.toString(), new RegExp(`Product hit-${server} \\(server-rendered, cacheable\\)`));
      assert.equal(first.headers['cache-control'], PRODUCT_CACHE_CONTROL);
      assert.equal(first.headers.age, undefined, 'the render itself is not a hit');
      assert.equal(first.headers['cache-tag'], undefined, 'Cache-Tag (from RESPONSE_INIT) is not sent to clients');
      const before = await cacheStats(server);
      const renders = await rendersDuring(server, async () => {
        for (let i = 0; i < 5; i++) {
          const again = await request(server, url);
          assert.equal(again.status, 200);
          assert.ok(again.headers.age !== undefined, `hit ${i}: an Age header`);
          assert.equal(again.headers['cache-control'], PRODUCT_CACHE_CONTROL);
          assert.equal(again.headers.etag, first.headers.etag);
          assert.equal(again.body.toString(), first.body.toString(), `hit ${i}: the stored render`);
        }
      });
      assert.equal(renders, 0, 'five hits, no render');
      assert.equal((await cacheStats(server)).hits - before.hits, 5);
      // a page without a lifetime is rendered each time (the cache stores only what may be shared)
      const live = [await request(server, '/live'), await request(server, '/live')];
      for (const res of live) assert.equal(res.headers.age, undefined);
    });

    test(`${server} + responseCache: If-None-Match gets a 304 from the cache, without a render`, async () => {
      const url = `/products/etag-${server}`;
      const first = await request(server, url);
      assert.equal(first.headers.etag, crcTag(first.body), 'the stored page carries its CRC-32 ETag');
      const before = await cacheStats(server);
      const renders = await rendersDuring(server, async () => {
        for (const method of ['GET', 'HEAD']) {
          const res = await request(server, url, { method, headers: { 'if-none-match': first.headers.etag } });
          assert.equal(res.status, 304, method);
          assert.equal(res.body.length, 0);
          assert.equal(res.headers.etag, first.headers.etag);
          assert.ok(res.headers.age !== undefined, `${method}: Age on the 304`);
        }
        const other = await request(server, url, { headers: { 'if-none-match': 'W/"0-00000000"' } });
        assert.equal(other.status, 200);
        assert.equal(other.body.toString(), first.body.toString());
      });
      assert.equal(renders, 0);
      assert.equal((await cacheStats(server)).notModified - before.notModified, 2);
    });

    test(`${server} + responseCache: 20 concurrent first requests, one render`, async () => {
      const url = `/products/burst-${server}`;
      const before = await cacheStats(server);
      let results;
      const renders = await rendersDuring(server, async () => {
        results = await Promise.all(Array.from({ length: 20 }, () => request(server, url)));
      });
      assert.equal(renders, 1, 'one render for the burst');
      const bodies = new Set(results.map((r) => r.body.toString()));
      assert.equal(bodies.size, 1, 'every client got that render');
      for (const r of results) assert.equal(r.status, 200);
      const after = await cacheStats(server);
      assert.ok(after.coalesced - before.coalesced >= 1, `requests waited for the render: ${JSON.stringify(after)}`);
    });

    test(`${server} + responseCache: a stale page (RESPONSE_INIT's s-maxage=1) is served at once and rendered again in the background`, async () => {
      const url = `/news/swr-${server}`;
      const first = await request(server, url);
      assert.equal(first.status, 200);
      assert.equal(first.headers['cache-control'], NEWS_CACHE_CONTROL, "the component's header");
      const rendered = renderOf(first);
      const fresh = await request(server, url);
      assert.equal(renderOf(fresh), rendered, 'a hit while fresh');
      await sleep(1100); // past s-maxage=1, within stale-while-revalidate=30
      const before = await cacheStats(server);
      const stale = await request(server, url);
      assert.equal(renderOf(stale), rendered, 'the stale copy, at once');
      assert.ok(Number(stale.headers.age) >= 1, `Age ${stale.headers.age}`);
      const start = Date.now();
      let next = stale;
      while (renderOf(next) === rendered && Date.now() - start < 10000) {
        await sleep(20);
        next = await request(server, url);
      }
      assert.equal(renderOf(next), rendered + 1, 'the background render replaced it');
      assert.ok(next.headers.age !== undefined, 'and the client got it from the cache');
      const after = await cacheStats(server);
      assert.ok(after.staleServed - before.staleServed >= 1);
      assert.equal(after.refreshes - before.refreshes, 1, JSON.stringify(after));
      fixture.log(`${server}: the background render was stored ${Date.now() - start} ms after the stale hit`);
    });

    test(`${server} + responseCache: purge(url) and purgeTag(tag from RESPONSE_INIT) drop just those pages`, async () => {
      const url = `/products/purge-${server}`;
      const other = `/products/kept-${server}`;
      const rendered = renderOf(await request(server, url));
      const kept = renderOf(await request(server, other));
      assert.equal(renderOf(await request(server, url)), rendered, 'cached');
      assert.equal(await servers[server].cache('purge', url), 1);
      const purged = await request(server, url);
      assert.equal(purged.headers.age, undefined, 'rendered again after purge(url)');
      assert.ok(renderOf(purged) > rendered);
      assert.equal(renderOf(await request(server, url)), renderOf(purged), 'and stored again');
      assert.equal(await servers[server].cache('purgeTag', `product-purge-${server}`), 1);
      const tagged = await request(server, url);
      assert.equal(tagged.headers.age, undefined, 'rendered again after purgeTag');
      assert.ok(renderOf(tagged) > renderOf(purged));
      const stillThere = await request(server, other);
      assert.equal(renderOf(stillThere), kept, 'another page stays cached');
      assert.ok(stillThere.headers.age !== undefined);
    });
  }

  test('criticalCss: per-user Bootstrap pages carry the critical CSS Angular inlines (AppEngine and CommonEngine)', async () => {
    const seen = new Set();
    for (const user of ['ann', 'bob', 'chloé']) {
      const url = `/orders/${encodeURIComponent(user)}?page=${user.length}`;
      const ours = await request('app-engine', url);
      assert.equal(ours.status, 200);
      const text = ours.body.toString();
      assert.match(text, /<table class="table table-striped/);
      assert.equal((text.match(/<tr>/g) || []).length, 51, 'a header row and 50 rows');
      seen.add(text);
      const stock = await request('stock-app-engine', url); // inlining off
      assertSameDocument(text, await angularInlined(stock.body.toString()), `AppEngine ${url}`);
      // CommonEngine: the stock server's own inlining (Angular's default) against ours
      const common = await request('common-engine', url);
      const stockCommon = await request('stock-common-engine', url);
      assertSameDocument(common.body.toString(), stockCommon.body.toString(), `CommonEngine ${url}`);
      assert.equal(ours.headers.etag, crcTag(ours.body), 'the tag of the bytes sent');
    }
    assert.equal(seen.size, 3, 'a distinct page per user');
    const stats = await servers['app-engine'].criticalCss();
    assert.ok(stats.inlined >= 3 && stats.plans >= 1, JSON.stringify(stats));
    assert.equal(stats.errors, 0);
  });

  test('the stock AppEngine server sends the same Cache-Control and renders every request', async () => {
    const first = await request('stock-app-engine', '/products/stock');
    const second = await request('stock-app-engine', '/products/stock');
    assert.equal(first.headers['cache-control'], PRODUCT_CACHE_CONTROL);
    assert.equal(first.headers['cache-tag'], 'product-stock, catalog', 'RESPONSE_INIT reached the response');
    assert.equal(second.headers.age, undefined);
    assert.equal(renderOf(second), renderOf(first) + 1);
  });

  // writeResponse next to Angular's writeResponseToNodeResponse (from the fixture's
  // @angular/ssr/node) over HTTP: for each kind of Response, the same status, headers and body,
  // except the ETag (and Content-Length instead of chunked) that ours adds to HTML
  // (scripts/angular-writer-diff.js; the other majors' writers in scripts/test-angular-versions.js).
  test('writeResponse writes what writeResponseToNodeResponse writes, plus the ETag', async () => {
    const { pathToFileURL } = require('url');
    const stockModule = path.join(fixture.APP, 'node_modules', '@angular', 'ssr', 'fesm2022', 'node.mjs');
    // Angular's packages are partially compiled: the JIT compiler must be loaded first
    await import(
      pathToFileURL(path.join(fixture.APP, 'node_modules', '@angular', 'compiler', 'fesm2022', 'compiler.mjs')).href
    );
    const { writeResponseToNodeResponse } = await import(pathToFileURL(stockModule).href);
    const { writeResponse } = require(path.join(fixture.APP, 'node_modules', 'ssr-native', 'lib', 'angular'));
    await compareWriters(writeResponseToNodeResponse, writeResponse);
  });

  if (!args.has('--no-versions')) {
    test(
      'cacheCommonEngine on the CommonEngine of @angular/ssr 17, 18, 19, 20 and 22',
      { timeout: 15 * 60 * 1000 },
      () => {
        const { execFileSync } = require('child_process');
        execFileSync(process.execPath, [path.join(__dirname, 'test-angular-versions.js')], { stdio: 'inherit' });
      },
    );
  }

  if (!args.has('--no-paint')) {
    // fails when a page of ours paints otherwise than the full render and no documented class
    // (paint-check.js's CLASSES, docs/critical-css-differences.md) explains it; the 99% share is
    // the whole corpus's (paint-check.js --all, npm run test:full)
    test(
      'critical CSS by paint: every page of ours that differs on a seeded 50-page sample is in a documented class',
      { timeout: 30 * 60 * 1000 },
      () => {
        const { execFileSync } = require('child_process');
        const paintArgs = [path.join(__dirname, 'paint-check.js'), '--sample', '50', '--seed', '1'];
        execFileSync(process.execPath, paintArgs, { stdio: 'inherit' });
      },
    );
  }
});
