'use strict';
// Critical CSS against hostile pages and folders: a page linking a stylesheet thousands of times
// is sent unchanged (the output is bounded before it is built), a link inside browserDistFolder
// never reads a file outside it, and a folder holding none of a page's stylesheets says so once.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const express = require('express');
const { criticalCss, CriticalCss } = require('../../../lib/express/critical-css');

const CSS = 'body{margin:0}.card{color:red}.unused{color:blue}\n';

function folder(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-css-bounds-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dist = path.join(root, 'browser');
  fs.mkdirSync(dist);
  fs.writeFileSync(path.join(dist, 'styles.css'), CSS);
  return { root, dist };
}

function page(links) {
  return `<!doctype html><html><head>${links.map((h) => `<link rel="stylesheet" href="${h}">`).join('')}</head><body><div class="card">x</div></body></html>`;
}

function get(port, p) {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path: p }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      })
      .on('error', reject);
  });
}

test('a page linking styles.css 10,000 times (an injected query) is sent unchanged and counted; Express 5', async (t) => {
  const { dist } = folder(t);
  const middleware = criticalCss({ browserDistFolder: dist, warm: false });
  const app = express();
  app.use(middleware);
  // the HTML injection point: ?n= links reflected into the page
  app.get('/', (req, res) => {
    const n = Number(req.query.n);
    res.type('html').send(page(Array.from({ length: n }, () => 'styles.css')));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(() => new Promise((r) => server.close(r)));
  const { port } = server.address();

  const ordinary = await get(port, '/?n=3');
  assert.equal(ordinary.match(/<style>/g).length, 3, 'an ordinary page keeps one <style> per link');
  assert.match(ordinary, /\.card\{color:red\}/);

  const attack = page(Array.from({ length: 10000 }, () => 'styles.css'));
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const rss = process.memoryUsage().rss;
  delay.enable();
  const body = await get(port, '/?n=10000');
  delay.disable();
  t.diagnostic(
    `attack page ${attack.length} B -> ${body.length} B, max event-loop delay ` +
      `${(delay.max / 1e6).toFixed(1)} ms, RSS +${((process.memoryUsage().rss - rss) / 1048576).toFixed(1)} MiB`,
  );
  assert.equal(body, attack, 'the page is sent as it was');
  const stats = middleware.stats();
  assert.equal(stats.overBound, 1);
  assert.equal(stats.inlined, 1);

  // 64 links is the bound: still inlined; 65 is over it
  assert.equal((await get(port, '/?n=64')).match(/<style>/g).length, 64);
  assert.equal(await get(port, '/?n=65'), page(Array.from({ length: 65 }, () => 'styles.css')));
  assert.equal(middleware.stats().overBound, 2);
});

test('inlined CSS past 4 MiB sends the page unchanged: a large stylesheet linked 64 times', async (t) => {
  const { dist } = folder(t);
  // 100 KiB of rules the page uses: 64 copies are 6.4 MiB of <style>
  const rules = Array.from({ length: 2000 }, (_, i) => `.card{--v${i}:${'a'.repeat(30)}}`).join('\n');
  fs.writeFileSync(path.join(dist, 'big.css'), rules);
  const css = new CriticalCss({ browserDistFolder: dist, warm: false });
  t.after(() => css.close());
  const thirty = page(Array.from({ length: 30 }, () => 'big.css'));
  assert.equal(css.processSync(thirty).match(/<style>/g).length, 30, '30 copies (~3 MiB) are inlined');
  const many = page(Array.from({ length: 64 }, () => 'big.css'));
  assert.equal(css.processSync(many), many);
  assert.equal(css.stats().overBound, 1);
  assert.match(css.engine.lastSkipReason, /bytes of inlined CSS/);
});

test('a link inside browserDistFolder never reads a file outside it; one inside it is followed', async (t) => {
  const { root, dist } = folder(t);
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.css'), '.card{content:"SECRET-TOKEN"}');
  fs.symlinkSync(path.join(outside, 'secret.css'), path.join(dist, 'leak.css'));
  fs.symlinkSync(outside, path.join(dist, 'dir'));
  fs.symlinkSync(path.join(dist, 'styles.css'), path.join(dist, 'alias.css'));
  const css = new CriticalCss({ browserDistFolder: dist, warm: false });
  t.after(() => css.close());
  for (const href of ['leak.css', 'dir/secret.css', '/dir/secret.css?x=1']) {
    const html = page([href]);
    const out = await css.processBody(Buffer.from(html), false);
    assert.doesNotMatch(String(out), /SECRET-TOKEN/, href);
    assert.doesNotMatch(String(out), /<style>/, href);
  }
  assert.equal(css.stats().outsideFolder, 3);
  assert.equal(css.stats().inlined, 0);
  const inside = String(await css.processBody(Buffer.from(page(['alias.css'])), false));
  assert.match(inside, /<style>body\{margin:0\}\.card\{color:red\}\n<\/style>/);
  assert.equal(css.stats().inlined, 1);
});

test('a browserDistFolder holding none of the linked stylesheets warns once and counts no page as inlined', async (t) => {
  const { root } = folder(t);
  const wrong = path.join(root, 'server'); // the server folder, a common mistake
  fs.mkdirSync(wrong);
  const css = new CriticalCss({ browserDistFolder: wrong, warm: false });
  t.after(() => css.close());
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  // three different pages (a repeated one is answered from the memo)
  for (let i = 0; i < 3; i++) await css.processBody(Buffer.from(page(['styles.css']) + i), false);
  await new Promise((r) => setImmediate(r));
  const ours = warnings.filter((w) => w.code === 'SSR_NATIVE_CRITICAL_CSS_UNREADABLE');
  assert.equal(ours.length, 1, 'one warning');
  assert.ok(ours[0].message.includes(JSON.stringify(wrong)), ours[0].message);
  assert.ok(ours[0].message.includes('"styles.css"'), ours[0].message);
  const stats = css.stats();
  assert.equal(stats.pages, 3);
  assert.equal(stats.inlined, 0);
  assert.equal(stats.unstyled, 3);
  assert.equal(stats.readErrors, 3, 'one read error per page, not per attempt');
});

test('an href first seen missing is checked again when its file appears: a link out is still refused', async (t) => {
  const { root, dist } = folder(t);
  fs.writeFileSync(path.join(root, 'secret.css'), '.card{content:"SECRET-TOKEN"}');
  const css = new CriticalCss({ browserDistFolder: dist, warm: false });
  t.after(() => css.close());
  css.processSync(page(['late.css']));
  assert.equal(css.stats().readErrors, 1);
  fs.symlinkSync(path.join(root, 'secret.css'), path.join(dist, 'late.css'));
  assert.doesNotMatch(String(css.processSync(page(['late.css']) + ' ')), /SECRET-TOKEN/);
  assert.equal(css.stats().outsideFolder, 1);
});
