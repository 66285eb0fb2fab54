'use strict';
// criticalCss behind Angular's own inliner (`inlineCritical` left on in angular.json): a rendered
// page Angular already inlined is sent exactly as Angular wrote it (never inlined twice, its
// stylesheet never deferred again, which under beasties 0.5 would leave it at media="print"),
// and one process warning names the angular.json setting. The pages are the real output of
// Angular 21's processor (beasties 0.4.1, `media` + onload + <noscript>), Angular 22's
// CommonEngine processor (beasties 0.5.4, `media-script`) and Angular 22's AppEngine runtime
// (beasties/runtime over a compiled plan, `data-beasties-media` + its loader script), through a
// real Express app.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const express = require('express');
const { criticalCss } = require('../../../lib/express/critical-css');
const { listen, request } = require('../helpers/http');
const { makeDistFolder, bootstrapPage, STYLESHEET } = require('../helpers/critical-css-pages');
const { createAngularProcessor } = require('./beasties-angular');
const { loadAppEngineRuntime } = require('./appengine-runtime');

const CODE = 'SSR_NATIVE_CRITICAL_CSS_ANGULAR_INLINED';
const dist = makeDistFolder();
test.after(() => dist.remove());

// The pages Angular writes for `page` with its inliner on, by loader.
async function angularInlined(page) {
  const angular21 = await createAngularProcessor({ path: dist.dir, beasties: '0.4' });
  const angular22 = await createAngularProcessor({ path: dist.dir, beasties: '0.5' });
  const runtime = await loadAppEngineRuntime();
  const css = fs.readFileSync(dist.stylesheet, 'utf8');
  return {
    'Angular 21 (media + onload + noscript)': await angular21.process(page),
    'Angular 22 CommonEngine (media-script)': await angular22.process(page),
    // the runtime's plan is compiled for the href styles.css (appengine-runtime.js)
    'Angular 22 AppEngine runtime (data-beasties-media)': await runtime.process(
      css,
      page.replace(STYLESHEET, 'styles.css'),
    ),
  };
}

// Runs `fn(url)` against an Express app whose routes send the pages of `pages` by name, behind
// criticalCss; returns the warnings of CODE emitted meanwhile.
async function serve(pages, fn) {
  const warnings = [];
  const onWarning = (w) => {
    if (w.code === CODE) warnings.push(w);
  };
  process.on('warning', onWarning);
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  app.use(middleware);
  app.get('/:name', (req, res) => res.type('html').send(pages[req.params.name]));
  const server = await listen(app);
  try {
    await fn(server.url, middleware);
    await new Promise((resolve) => setImmediate(resolve)); // emitWarning delivers on the next tick
  } finally {
    await server.close();
    middleware.close();
    process.off('warning', onWarning);
  }
  return warnings;
}

test('a rendered page Angular already inlined is sent as Angular wrote it, with one warning (each loader)', async () => {
  const page = bootstrapPage('ada');
  for (const [shape, done] of Object.entries(await angularInlined(page))) {
    assert.ok(done.length > page.length, `${shape}: Angular inlined it`);
    assert.equal(done.split('<style').length - 1, 1, `${shape}: one <style> block from Angular`);
    const warnings = await serve({ page: done, other: done.replace('ada', 'bob') }, async (url, middleware) => {
      for (const name of ['page', 'other', 'page']) {
        const res = await request(`${url}/${name}`);
        assert.equal(res.status, 200);
        const expected = name === 'page' ? done : done.replace('ada', 'bob');
        assert.ok(res.body.toString() === expected, `${shape} /${name}: untouched`);
      }
      assert.equal(middleware.stats().inlined, 0, shape);
    });
    assert.equal(warnings.length, 1, `${shape}: one warning for three pages`);
    assert.match(warnings[0].message, /"inlineCritical": false in angular\.json/);
    assert.match(warnings[0].message, /optimization\.styles\.inlineCritical/);
  }
});

test('a page not inlined yet is inlined, without the warning', async () => {
  const page = bootstrapPage('ada');
  const warnings = await serve({ page }, async (url) => {
    const res = await request(`${url}/page`);
    const body = res.body.toString();
    assert.match(body, /<style>/);
    assert.match(body, new RegExp(`<link rel="stylesheet" href="${STYLESHEET}" media="print"`));
  });
  assert.equal(warnings.length, 0);
});
