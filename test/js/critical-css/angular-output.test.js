'use strict';
// The middleware sends what Angular would: for the same rendered pages, the output of beasties
// 0.5.4 as @angular/ssr's InlineCriticalCssProcessor configures it (beasties-angular.js),
// compared as issue 36 defines "the same" (but for the documented differences; parse5-equal
// documents, byte-equal <style> texts). Bootstrap 5 + Material's azure-blue theme, seeded pages.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const express = require('express');
const { criticalCss } = require('../../../lib/express/critical-css');
const { writeResponse } = require('../../../lib/angular/index.js');
const { listen, request } = require('../helpers/http');
const { makeDistFolder, bootstrapPage } = require('../helpers/critical-css-pages');
const { createAngularProcessor } = require('./beasties-angular');
const { compareOutputsAllowingDocumented } = require('./compare');
const { mulberry32 } = require('../helpers/seeded-random');

test("Express + criticalCss: Angular's inlining of each page (beasties with Angular's options)", async () => {
  const dist = makeDistFolder();
  const css = fs.readFileSync(dist.stylesheet, 'utf8');
  const processor = await createAngularProcessor({ path: dist.dir, readFile: () => css });
  const angular = (html) => processor.process(html);
  const seed = Number(process.env.SEED || 36);
  const random = mulberry32(seed);
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  app.use(middleware);
  const pages = new Map();
  app.get('/send/:n', (req, res) => res.send(pages.get(req.params.n)));
  app.get('/angular/:n', (req, res, next) =>
    writeResponse(
      new Response(pages.get(req.params.n), { headers: { 'content-type': 'text/html;charset=UTF-8' } }),
      req,
      res,
    ).catch(next),
  );
  const server = await listen(app);
  try {
    for (let n = 0; n < 6; n++) {
      const rows = 1 + Math.floor(random() * 120);
      const page = bootstrapPage(`user ${n} <${Math.floor(random() * 1e6)}> & co`, rows);
      pages.set(String(n), page);
      const expected = await angular(page);
      for (const route of ['send', 'angular']) {
        const res = await request(`${server.url}/${route}/${n}`);
        assert.match(expected, /<style>/);
        const difference = compareOutputsAllowingDocumented(res.body.toString(), expected);
        assert.equal(difference, null, `seed ${seed}, page ${n} (${rows} rows), ${route}: ${difference}`);
      }
    }
  } finally {
    await server.close();
    middleware.close();
    dist.remove();
  }
});
