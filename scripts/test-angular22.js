'use strict';
// The Angular 22 part of npm run test:angular (scripts/test-angular.js runs it first; alone:
// `node scripts/test-angular22.js [--no-install] [--no-build]`). test/fixtures/angular22-app is
// an `ng new --ssr` app of Angular 22 (AppEngine) whose src/server.ts is the README's block as
// pasted, with the angular.json settings the README names; it is installed, built and served
// with Node 24 (Angular 22 refuses Node 20), as `node dist/angular22-app/server/server.mjs`. The
// checks are what the README promises a user: compression, critical CSS once with the
// stylesheet deferred, a weak ETag and 304s, cache hits, prerendered pages served as built.
const assert = require('assert/strict');
const { spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { describe, test, before, after } = require('node:test');
const fixture = require('./angular-fixture');
const { crcTag } = require('./angular-writer-diff');

const app = fixture.angular22;
// A name the README's server.ts lists in responseCache's allowedHosts, and angular.json in
// security.allowedHosts: the site's own Host, as a reverse proxy forwards it
const HOST = 'shop.example';
const BROWSERS_ACCEPT = 'gzip, deflate, br, zstd';
const PRODUCT_CACHE_CONTROL = 'public, s-maxage=60, stale-while-revalidate=600';

// The ```ts block of README.md's "Angular SSR: the whole server" section.
function readmeServerTs() {
  const readme = fs.readFileSync(path.join(fixture.ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Angular SSR: the whole server'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(match, "README.md's Angular section has a ts block");
  return match[1];
}

// What the critical CSS adds to a page, as Angular 22's processor writes it (beasties 0.5): one
// <style> in <head>, the stylesheet's <link> at media="print" with data-beasties-media, a
// <noscript> copy of the link and the script that puts the media back.
const LOADER = /<script>document\.querySelectorAll\('link\[data-beasties-media\]'\)[^<]*<\/script>/g;
const DEFERRED_LINK = /<link rel="stylesheet" href="(styles-[^"]+\.css)" media="print" data-beasties-media="all">/g;

function assertCriticalCssOnce(html, what) {
  const head = html.slice(0, html.indexOf('</head>'));
  const inlined = head.match(/<style>[^<]*<\/style>/g) || [];
  assert.equal(inlined.length, 1, `${what}: one inlined <style> in <head>`);
  assert.match(inlined[0], /:root\{--bs-blue/, `${what}: Bootstrap's rules the page uses`);
  assert.ok(inlined[0].length < 64 * 1024, `${what}: the critical rules, not the whole sheet`);
  const deferred = [...html.matchAll(DEFERRED_LINK)];
  assert.equal(deferred.length, 1, `${what}: the stylesheet deferred once`);
  assert.equal((html.match(LOADER) || []).length, 1, `${what}: one loader script`);
  const plain = html.match(/<link rel="stylesheet" href="styles-[^"]+\.css">/g) || [];
  assert.deepEqual(plain, [`<link rel="stylesheet" href="${deferred[0][1]}">`], `${what}: only the <noscript> copy`);
  assert.ok(html.includes(`<noscript>${plain[0]}</noscript>`), `${what}: the <noscript> copy`);
}

// The page as Angular built it: what the critical CSS added, taken out again.
function withoutCriticalCss(html) {
  return html
    .replace(/<style>[^<]*<\/style>/, '')
    .replace(' media="print" data-beasties-media="all"', '')
    .replace(LOADER, '')
    .replace(/<noscript><link rel="stylesheet" href="[^"]*"><\/noscript>/, '')
    .replace(' data-beasties-container', '');
}

function renderOf(res) {
  const m = /id="render"[^>]*>render (\d+)</.exec(res.body.toString());
  assert.ok(m, `a render number in ${res.body.toString().slice(0, 200)}`);
  return Number(m[1]);
}

function register(args = new Set(process.argv.slice(2))) {
  describe('Angular 22 (AppEngine, the README server.ts) on Node 24', () => {
    let server;
    let buildOutput = '';
    const timings = {};

    // http.request, not fetch: fetch decompresses, hides 304 details and adds its own headers.
    function request(urlPath, { method = 'GET', headers = {} } = {}) {
      return new Promise((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: server.port, path: urlPath, method, headers: { host: HOST, ...headers } },
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

    before(
      async () => {
        fixture.log(`Angular 22 fixture on ${app.nodeBin()}`);
        if (!args.has('--no-install') || !app.isInstalled()) timings.install = app.install();
        if (!args.has('--no-build') || !app.isBuilt()) {
          try {
            const built = app.build();
            timings.build = built.seconds;
            buildOutput = built.output;
          } catch (err) {
            process.stderr.write(String(err.stdout || '') + String(err.stderr || ''));
            throw err;
          }
        }
        timings.start = process.hrtime.bigint();
        server = await app.startServer();
      },
      { timeout: 20 * 60 * 1000 },
    );

    after(async () => {
      if (server) await server.stop();
      if (timings.install !== undefined) fixture.log(`Angular 22: install took ${timings.install.toFixed(1)} s`);
      if (timings.build !== undefined) fixture.log(`Angular 22: build took ${timings.build.toFixed(1)} s`);
      if (timings.start !== undefined) {
        const seconds = Number(process.hrtime.bigint() - timings.start) / 1e9;
        fixture.log(`Angular 22: server and tests took ${seconds.toFixed(1)} s`);
      }
    });

    test("the app's server.ts is the README's, and angular.json has the README's settings", () => {
      const serverTs = fs.readFileSync(path.join(app.APP, 'src', 'server.ts'), 'utf8');
      assert.equal(serverTs, readmeServerTs(), 'src/server.ts is the README block, unchanged');
      const angularJson = JSON.parse(fs.readFileSync(path.join(app.APP, 'angular.json'), 'utf8'));
      const build = angularJson.projects['angular22-app'].architect.build;
      assert.deepEqual(build.options.externalDependencies, ['ssr-native']);
      assert.ok(build.options.security.allowedHosts.includes(HOST));
      assert.equal(build.configurations.production.optimization.styles.inlineCritical, false);
      const pkg = JSON.parse(fs.readFileSync(path.join(app.APP, 'node_modules', '@angular', 'ssr', 'package.json')));
      assert.match(pkg.version, /^22\./);
    });

    test('ng build (Node 24) prerenders / and /about and keeps ssr-native out of the bundle', () => {
      if (buildOutput) assert.match(buildOutput, /Prerendered 2 static routes/);
      const routes = JSON.parse(fs.readFileSync(path.join(app.DIST, 'prerendered-routes.json'), 'utf8')).routes;
      assert.deepEqual(Object.keys(routes).sort(), ['/', '/about']);
      const bundle = fs.readFileSync(app.SERVER_BUNDLE, 'utf8');
      for (const entry of ['ssr-native', 'ssr-native/compression', 'ssr-native/cache', 'ssr-native/angular']) {
        assert.ok(new RegExp(`from\\s*"${entry}"`).test(bundle), `server.mjs imports ${entry} from node_modules`);
      }
      assert.ok(!fs.lstatSync(path.join(app.APP, 'node_modules', 'ssr-native')).isSymbolicLink(), 'the tarball');
    });

    test('a server-rendered page: br for a browser, the same page compressed', async () => {
      const plain = await request('/live');
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      const html = plain.body.toString();
      assert.match(html, /Live page \(server-rendered\)/);
      assert.match(html, /<p id="path">\/live<\/p>/);
      const br = await request('/live', { headers: { 'accept-encoding': BROWSERS_ACCEPT } });
      assert.equal(br.status, 200);
      assert.equal(br.headers['content-encoding'], 'br');
      assert.match(br.headers.vary, /Accept-Encoding/);
      assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} bytes of br for ${plain.body.length}`);
      assert.equal(zlib.brotliDecompressSync(br.body).toString(), html, 'the same page, compressed');
    });

    test('a server-rendered page: its critical CSS inlined once, the stylesheet deferred', async () => {
      const page = await request('/live');
      assert.equal(page.status, 200);
      const html = page.body.toString();
      assert.doesNotMatch(html, /ng-server-context="ssg"/);
      assertCriticalCssOnce(html, '/live');
    });

    test('a server-rendered page: a weak CRC-32 ETag of the page, 304 on If-None-Match (compressed too)', async () => {
      const page = await request('/live');
      assert.equal(page.headers.etag, crcTag(page.body), 'W/"<length>-<crc32>" of the page');
      assert.match(page.headers.etag, /^W\//);
      for (const method of ['GET', 'HEAD']) {
        for (const encoding of [undefined, BROWSERS_ACCEPT]) {
          const headers = { 'if-none-match': page.headers.etag };
          if (encoding) headers['accept-encoding'] = encoding;
          const again = await request('/live', { method, headers });
          assert.equal(again.status, 304, `${method} ${encoding || 'identity'}`);
          assert.equal(again.body.length, 0);
        }
      }
      const br = await request('/live', { headers: { 'accept-encoding': BROWSERS_ACCEPT } });
      assert.equal(br.headers.etag, page.headers.etag, 'the tag of the page, whatever its encoding');
      const other = await request('/live', { headers: { 'if-none-match': 'W/"0-00000000"' } });
      assert.equal(other.status, 200);
    });

    test("a route's shared Cache-Control makes the next request a hit (Age, no render)", async () => {
      const url = '/products/angular22';
      const first = await request(url, { headers: { 'accept-encoding': BROWSERS_ACCEPT } });
      assert.equal(first.status, 200);
      assert.equal(first.headers['cache-control'], PRODUCT_CACHE_CONTROL);
      assert.equal(first.headers.age, undefined, 'the render itself is not a hit');
      assert.equal(first.headers['content-encoding'], 'br');
      const rendered = renderOf({ body: zlib.brotliDecompressSync(first.body) });
      for (let i = 0; i < 3; i++) {
        const hit = await request(url, { headers: { 'accept-encoding': BROWSERS_ACCEPT } });
        assert.ok(hit.headers.age !== undefined, `hit ${i}: Age`);
        assert.equal(hit.headers['content-encoding'], 'br');
        assert.equal(hit.headers.etag, first.headers.etag);
        assert.ok(hit.body.equals(first.body), `hit ${i}: the stored page`);
      }
      const identity = await request(url);
      assert.ok(identity.headers.age !== undefined);
      assert.equal(renderOf(identity), rendered, 'not rendered again');
      assertCriticalCssOnce(identity.body.toString(), url);
      const notModified = await request(url, { headers: { 'if-none-match': first.headers.etag } });
      assert.equal(notModified.status, 304);
      assert.ok(notModified.headers.age !== undefined, '304 from the cache');
      // a page without a shared lifetime is rendered each time
      assert.equal((await request('/live')).headers.age, undefined);
      // and a Host the site does not list is Angular's 400, never a stored page
      const foreign = await request(url, { headers: { host: 'evil.example' } });
      assert.equal(foreign.status, 400);
    });

    test('a prerendered page is served as built, with its critical CSS, and 304s', async () => {
      for (const [urlPath, file] of [
        ['/about', 'about/index.html'],
        ['/', 'index.html'],
      ]) {
        const page = await request(urlPath);
        assert.equal(page.status, 200);
        const html = page.body.toString();
        assert.match(html, /ng-server-context="ssg"/);
        assertCriticalCssOnce(html, urlPath);
        const built = fs.readFileSync(path.join(app.BROWSER, file), 'utf8');
        assert.equal(withoutCriticalCss(html), built, `${urlPath}: the built page, plus only its critical CSS`);
        assert.ok(page.headers.etag, `${urlPath}: an ETag`);
        const again = await request(urlPath, { headers: { 'if-none-match': page.headers.etag } });
        assert.equal(again.status, 304);
        const br = await request(urlPath, { headers: { 'accept-encoding': BROWSERS_ACCEPT } });
        assert.equal(br.headers['content-encoding'], 'br');
        assert.equal(zlib.brotliDecompressSync(br.body).toString(), html);
      }
    });

    test('ssr-native-critical-css on this build: browser/ inlined, server/assets-chunks left as built, said', () => {
      // on a copy: the server above serves this build
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'angular22-dist-'));
      try {
        fs.cpSync(app.DIST, copy, { recursive: true });
        const chunks = path.join(copy, 'server', 'assets-chunks');
        const names = fs.readdirSync(chunks).filter((n) => n.endsWith('_html.mjs'));
        assert.ok(names.includes('about_index_html.mjs'), `the prerendered /about among ${names}`);
        const before = names.map((n) => fs.readFileSync(path.join(chunks, n), 'utf8'));
        const bin = path.join(fixture.ROOT, 'bin', 'ssr-native-critical-css.js');
        const r = spawnSync(app.nodeBin(), [bin, path.join(copy, 'browser')], { cwd: app.APP, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /as Angular 22\.\d+\.\d+ writes it, beasties 0\.5\): [1-9]\d* inlined/);
        assert.match(
          r.stderr,
          new RegExp(`assets-chunks: ${names.length} page\\(s\\) compiled into the server bundle`),
        );
        assertCriticalCssOnce(fs.readFileSync(path.join(copy, 'browser', 'about', 'index.html'), 'utf8'), 'about');
        const after = names.map((n) => fs.readFileSync(path.join(chunks, n), 'utf8'));
        assert.deepEqual(after, before, 'the chunks AppEngine serves are not rewritten');
      } finally {
        fs.rmSync(copy, { recursive: true, force: true });
      }
    });
  });
}

if (require.main === module) register();

module.exports = { register };
