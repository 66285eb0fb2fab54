'use strict';
// Run by scripts/test-angular-versions.js in a folder where one major of @angular/ssr is
// installed (the working directory): node angular-version-check.js <major>
// Checks cacheCommonEngine on that version's real CommonEngine, next to an unpatched one, and
// (19+) writeResponse against that version's writeResponseToNodeResponse.
const assert = require('assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { cacheCommonEngine, ssgCacheOf, writeResponse } = require('../lib/angular');
const { compareWriters } = require('./angular-writer-diff');

const major = Number(process.argv[2]);
const SSG = (title) =>
  `<!DOCTYPE html><html lang="en" ng-server-context="ssg"><head><title>${title}</title></head>` +
  `<body><app-root>${title} (prerendered)</app-root></body></html>`;

async function loadAngular() {
  const entry = path.join(process.cwd(), 'common-engine.mjs');
  // 19+: @angular/ssr/node, which also has the AppEngine's writeResponseToNodeResponse
  const exports =
    major >= 19
      ? "{ CommonEngine, writeResponseToNodeResponse } from '@angular/ssr/node'"
      : "{ CommonEngine } from '@angular/ssr'";
  fs.writeFileSync(entry, `import '@angular/compiler';\nexport ${exports};\n`);
  const { CommonEngine, writeResponseToNodeResponse } = await import(pathToFileURL(entry).href);
  const { version } = JSON.parse(
    fs.readFileSync(path.join(process.cwd(), 'node_modules/@angular/ssr/package.json'), 'utf8'),
  );
  return { CommonEngine, writeResponseToNodeResponse, version };
}

async function eventually(what, fn) {
  const start = Date.now();
  for (;;) {
    if (await fn()) return Date.now() - start;
    if (Date.now() - start > 5000) throw new Error(`${what}: not within 5 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  const { CommonEngine, writeResponseToNodeResponse, version } = await loadAngular();
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), `ssr-native-ssg-${major}-`));
  try {
    const publicPath = path.join(tree, 'browser');
    fs.mkdirSync(path.join(publicPath, 'about'), { recursive: true });
    fs.mkdirSync(path.join(publicPath, 'plain'), { recursive: true });
    fs.writeFileSync(path.join(publicPath, 'index.html'), SSG('Home'));
    fs.writeFileSync(path.join(publicPath, 'about', 'index.html'), SSG('About'));
    fs.writeFileSync(path.join(publicPath, 'plain', 'index.html'), '<html><body>not prerendered</body></html>');
    const documentFilePath = path.join(tree, 'index.server.html');
    fs.writeFileSync(documentFilePath, '<html><body><app-root></app-root></body></html>');

    const options = { allowedHosts: ['localhost'] }; // read by 21+, ignored before
    const stock = new CommonEngine(options);
    const engine = cacheCommonEngine(new CommonEngine(options));
    assert.equal(cacheCommonEngine(engine), engine, 'a second call returns the engine as it is');
    const render = (e, urlPath) => e.render({ url: `http://localhost${urlPath}`, publicPath, documentFilePath });
    const outcome = (promise) =>
      promise.then(
        (html) => ({ html }),
        (err) => ({ error: err.message }),
      );

    // hits: every prerendered page read once, then from memory, the same text as the stock engine
    for (let i = 0; i < 5; i++) {
      for (const urlPath of ['/', '/about', '/about?x=1']) {
        assert.deepEqual(await outcome(render(engine, urlPath)), await outcome(render(stock, urlPath)), urlPath);
      }
    }
    let stats = ssgCacheOf(engine).stats();
    assert.equal(stats.reads, 2, JSON.stringify(stats));
    assert.equal(stats.hits, 13, JSON.stringify(stats));

    // misses: no file, a file without the marker, the document itself: rendered by the engine
    // (here without a bootstrap, so both engines fail the same way when they try to render)
    for (const urlPath of ['/missing', '/plain', '/plain/']) {
      const ours = await outcome(render(engine, urlPath));
      assert.ok(ours.error, `${urlPath} goes to rendering`);
      assert.deepEqual(ours, await outcome(render(stock, urlPath)), urlPath);
    }
    stats = ssgCacheOf(engine).stats();
    assert.equal(stats.reads, 3, JSON.stringify(stats)); // /plain was read once to see it has no marker

    // invalidation: an edited page is served fresh (inotify), read once more
    fs.writeFileSync(path.join(publicPath, 'about', 'index.html'), SSG('About, edited'));
    const ms = await eventually('edited page', async () => (await render(engine, '/about')).includes('About, edited'));
    assert.equal(await render(engine, '/about'), await render(stock, '/about'));
    assert.equal(ssgCacheOf(engine).stats().reads, 4);
    // a page that loses its marker is no longer served as prerendered
    fs.writeFileSync(path.join(publicPath, 'index.html'), '<html><body>now dynamic</body></html>');
    await eventually('page without marker', async () => (await outcome(render(engine, '/'))).error !== undefined);

    // bounded memo: random paths do not grow it past maxPages
    const bounded = cacheCommonEngine(new CommonEngine(options), { maxPages: 8 });
    for (let i = 0; i < 100; i++) await outcome(render(bounded, `/random-${i}`));
    assert.ok(ssgCacheOf(bounded).stats().pages <= 8);
    ssgCacheOf(bounded).close();
    assert.equal(ssgCacheOf(bounded), undefined);

    // an engine of unknown shape: a TypeError that names the installed version
    const future = new CommonEngine(options);
    future.retrieveSSGPage = undefined;
    assert.throws(
      () => cacheCommonEngine(future),
      (err) =>
        err instanceof TypeError &&
        err.message.includes(`@angular/ssr ${version}`) &&
        err.message.includes('no retrieveSSGPage()'),
    );

    ssgCacheOf(engine).close();
    console.log(
      `angular ${major}: @angular/ssr ${version} CommonEngine passes on Node ${process.versions.node} (edit seen after ${ms} ms)`,
    );
    if (writeResponseToNodeResponse) {
      await compareWriters(writeResponseToNodeResponse, writeResponse);
      console.log(`angular ${major}: writeResponse writes what its writeResponseToNodeResponse writes, plus the ETag`);
    }
  } finally {
    fs.rmSync(tree, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`angular ${major}: FAILED`, err);
  process.exit(1);
});
