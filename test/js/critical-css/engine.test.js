'use strict';
// CriticalCssEngine's contract: string in string out, Buffer in Buffer out, TypeError for
// anything else, pages it cannot process come back unchanged and counted, plans keyed by the
// stylesheet's content (rebuilt when it changes) and bounded by maxPlans.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CriticalCssEngine } = require('../../../lib/critical-css/engine.js');

const page = (href = 'styles.css', body = '<div class="a">x</div>') =>
  `<!doctype html><html><head><link rel="stylesheet" href="${href}"></head><body>${body}</body></html>`;

function folder(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-engine-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

test('string in, string out; Buffer in, Buffer out; the same bytes either way', () => {
  const dir = folder({ 'styles.css': '.a{color:red}.b{color:blue}' });
  const engine = new CriticalCssEngine({ path: dir });
  const out = engine.process(page());
  assert.strictEqual(typeof out, 'string');
  assert.match(out, /<style>\.a\{color:red\}<\/style><link rel="stylesheet" href="styles.css" media="print"/);
  const buf = engine.process(Buffer.from(page()));
  assert.ok(Buffer.isBuffer(buf));
  assert.strictEqual(buf.toString(), out);
  assert.deepStrictEqual(
    { pages: engine.stats().pages, inlined: engine.stats().inlined, plans: engine.stats().plans },
    { pages: 2, inlined: 2, plans: 1 },
  );
});

test('a TypeError for anything but a string or a Buffer; options are checked', () => {
  const engine = new CriticalCssEngine({ path: '.' });
  for (const bad of [undefined, null, 42, {}, new Uint16Array(2)]) {
    assert.throws(() => engine.process(bad), TypeError);
  }
  assert.throws(() => new CriticalCssEngine({ preload: 'swap' }), RangeError);
  assert.throws(() => new CriticalCssEngine({ pruneSource: true }), RangeError);
  assert.throws(() => new CriticalCssEngine({ maxPlans: 0 }), RangeError);
  assert.throws(() => new CriticalCssEngine({ readStylesheet: 'x' }), TypeError);
});

test("preload follows the Angular of the beasties version; either of Angular's modes can be asked for", () => {
  const dir = folder({ 'styles.css': '.a{color:red}' });
  const nonce = page('styles.css', '<div class="a" ngCspNonce="n1">x</div>');
  const onload = /<link rel="stylesheet" href="styles.css" media="print" onload="this.media='all'">/;
  const cspMedia = /<link rel="stylesheet" href="styles.css" media="print" ngCspMedia="all">/;
  const deferred = /<link rel="stylesheet" href="styles.css" media="print" data-beasties-media="all">/;
  const loader =
    /<script nonce="n1">document\.querySelectorAll\('link\[data-beasties-media\]'\)[^<]*<\/script><\/body>/;
  const angular21 = new CriticalCssEngine({ path: dir, beasties: '0.4' });
  assert.match(angular21.process(page()), onload);
  assert.match(angular21.process(nonce), cspMedia);
  const angular22 = new CriticalCssEngine({ path: dir, beasties: '0.5' });
  assert.match(angular22.process(page()), deferred);
  const out = angular22.process(nonce);
  assert.match(out, deferred);
  assert.match(out, loader);
  assert.match(out, /<style nonce="n1">/);
  assert.doesNotMatch(out, /ngCspMedia|onload/);
  // beasties 0.5 with Angular 21's processor
  const both = new CriticalCssEngine({ path: dir, beasties: '0.5', preload: 'media' });
  assert.match(both.process(page()), onload);
  assert.match(both.process(nonce), cspMedia);
  assert.throws(() => new CriticalCssEngine({ path: dir, beasties: '0.4', preload: 'media-script' }), RangeError);
  // no <body> for the loader: the page is left as it is, counted
  const bodiless = '<!doctype html><html><head><link rel="stylesheet" href="styles.css"></head></html>';
  const before = angular22.stats().skipped;
  assert.strictEqual(angular22.process(bodiless), bodiless);
  assert.strictEqual(angular22.stats().skipped, before + 1);
  assert.match(angular22.stats().lastSkipReason, /<body>/);
});

test('pages beyond the limits come back unchanged and are counted, never thrown', () => {
  const dir = folder({ 'styles.css': '.a{color:red}' });
  const engine = new CriticalCssEngine({ path: dir });
  const deep = page('styles.css', '<div>'.repeat(5000));
  assert.strictEqual(engine.process(deep), deep);
  // beasties 0.5 searches every data-beasties-container of a page: not reproduced
  const marked = page('styles.css', '<div data-beasties-container></div><div data-beasties-container>x</div>');
  assert.strictEqual(engine.process(marked), marked);
  assert.strictEqual(engine.stats().skipped, 2);
  assert.match(engine.stats().lastSkipReason, /more than one data-beasties-container/);
});

test('a missing, remote or outside stylesheet leaves the link as beasties leaves it', () => {
  const dir = folder({ 'styles.css': '.a{color:red}' });
  const engine = new CriticalCssEngine({ path: dir });
  for (const href of ['missing.css', 'https://cdn.example.com/x.css', '../outside.css']) {
    const out = engine.process(page(href));
    assert.doesNotMatch(out, /<style>/);
    assert.doesNotMatch(out, /media="print"/);
    assert.match(out, /<html data-beasties-container>/);
  }
});

test('plans follow the stylesheet content and stay within maxPlans', () => {
  const files = {};
  for (let i = 0; i < 5; i++) files[`s${i}.css`] = `.a{n:${i}}`;
  const dir = folder(files);
  const contents = new Map(Object.entries(files).map(([n, t]) => [path.join(dir, n), t]));
  const engine = new CriticalCssEngine({ path: dir, maxPlans: 2, readStylesheet: (f) => contents.get(f) ?? null });
  for (let i = 0; i < 5; i++) assert.match(engine.process(page(`s${i}.css`)), new RegExp(`\\.a\\{n:${i}\\}`));
  assert.strictEqual(engine.stats().plans, 2);
  contents.set(path.join(dir, 's4.css'), '.a{n:changed}');
  assert.match(engine.process(page('s4.css')), /\.a\{n:changed\}/);
  assert.ok(engine.stats().planBytes > 0);
});

test('a readStylesheet that returns the wrong type is a TypeError (a programming error)', () => {
  const engine = new CriticalCssEngine({ path: '/', readStylesheet: () => 42 });
  assert.throws(() => engine.process(page()), TypeError);
});

// Angular serves a prerendered page (ng-server-context="ssg") as it was built, never through its
// inliner: serving (leaveInlinedPrerendered, which CriticalCss sets) leaves one already inlined
// alone; a rendered page, or the engine as Angular's processor, processes it as Angular would.
test('leaveInlinedPrerendered: a prerendered page already inlined goes out as built', () => {
  const dir = folder({ 'styles.css': '.a{color:red}.b{color:blue}' });
  const fresh = (context) =>
    `<!doctype html><html><head><link rel="stylesheet" href="styles.css"></head><body><app-root ng-server-context="${context}"><div class="a b">x</div></app-root></body></html>`;
  for (const beasties of ['0.4', '0.5']) {
    const processor = new CriticalCssEngine({ path: dir, beasties });
    const serving = new CriticalCssEngine({ path: dir, beasties, leaveInlinedPrerendered: true });
    for (const context of ['ssg', 'ssr', 'ssg|hydrated']) {
      const built = processor.process(fresh(context));
      assert.match(built, /data-beasties-container/, `${beasties} ${context}: inlined once`);
      const again = serving.process(built);
      if (context === 'ssr') {
        assert.notStrictEqual(again, built, `${beasties}: a rendered page is processed again`);
      } else {
        assert.strictEqual(again, built, `${beasties} ${context}: left as built`);
        assert.strictEqual(serving.stats().lastSkipReason, 'a prerendered page already inlined');
      }
      // the processor (Angular 21 undoes its deferral; 0.5 defers it as it is) processes it
      assert.notStrictEqual(processor.process(built), built, `${beasties} ${context}: processed`);
    }
    // a prerendered page not inlined yet is inlined by either
    assert.match(serving.process(fresh('ssg')), /<style[^>]*>\.a\{color:red\}\.b\{color:blue\}<\/style>/);
  }
  assert.throws(() => new CriticalCssEngine({ path: dir, leaveInlinedPrerendered: 1 }), TypeError);
});

test('a plan evicted by maxPlans is not kept alive by its stylesheet: the page compiles it again', () => {
  const dir = folder({ 'a.css': '.a{color:red}', 'b.css': '.a{color:blue}' });
  const engine = new CriticalCssEngine({ path: dir, maxPlans: 1 });
  for (const href of ['a.css', 'b.css', 'a.css']) assert.match(engine.process(page(href)), /<style>\.a\{color:/);
  // a.css's plan went out when b.css's came in; a.css seen again is compiled again, and only the
  // plan the engine holds is in use (2 compiles before: a.css's file kept the evicted plan)
  assert.deepStrictEqual({ compiled: engine.stats().compiled, plans: engine.stats().plans }, { compiled: 3, plans: 1 });
});
