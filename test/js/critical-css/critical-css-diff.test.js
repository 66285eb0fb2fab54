'use strict';
// Differential test of the critical-CSS engine against the real beasties 0.4.1 (Angular 21) and
// 0.5.4 (Angular 22.2+), each configured as
// Angular's InlineCriticalCssProcessor: stylesheets from npm (Bootstrap 5, Angular Material
// themes, PrimeIcons, a Tailwind-shaped build) x seeded pages generated from each stylesheet's
// own selectors. "The same": every <style> text byte for byte, and the parse5 documents equal,
// but for the one documented difference, CSS nesting (compare.js's classifyDifference: ours with
// its kept nested rules removed equals beasties').
// A failure prints the stylesheet, the seed and the page.
//   CRITICAL_CSS_DIFF_PAGES=n  pages per stylesheet and beasties version (default 150:
//                              7 x 2 x 150 = 2,100 pairs, npm test's budget as before)
//   CRITICAL_CSS_DIFF_SEED=n   first seed (default 1)
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CriticalCssEngine } = require('../../../lib/critical-css/engine.js');
const { createAngularProcessor } = require('./beasties-angular.js');
const { classifyDifference } = require('./compare.js');
const { stylesheets, vocabulary, generatePage, variantFor } = require('./corpus.js');

const PAGES = Number(process.env.CRITICAL_CSS_DIFF_PAGES || 150);
const FIRST_SEED = Number(process.env.CRITICAL_CSS_DIFF_SEED || 1);

for (const [beasties, sheet] of ['0.4', '0.5'].flatMap((v) => stylesheets().map((s) => [v, s]))) {
  test(`critical CSS equals beasties ${beasties} (Angular's options) on ${PAGES} pages with ${sheet.name}`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-diff-'));
    try {
      fs.writeFileSync(path.join(dir, 'styles.css'), sheet.css);
      const vocab = vocabulary(sheet.css);
      const engines = [false, true].map((minify) => new CriticalCssEngine({ path: dir, minify, beasties }));
      const peers = await Promise.all(
        [false, true].map((minify) => createAngularProcessor({ path: dir, minify, beasties })),
      );
      const failures = [];
      let inlined = 0;
      let nesting = 0;
      for (let i = 0; i < PAGES; i++) {
        const seed = FIRST_SEED + i;
        const minify = seed % 3 === 0;
        const html = generatePage(vocab, seed, variantFor(seed));
        const ours = engines[minify ? 1 : 0].process(html);
        const theirs = await peers[minify ? 1 : 0].process(html);
        const found = classifyDifference(ours, theirs);
        const difference = found && !found.documented ? found.difference : null;
        if (found?.documented) nesting++;
        if (/<style/.test(ours)) inlined++;
        if (difference) {
          failures.push(
            `${sheet.name} beasties=${beasties} seed=${seed} minify=${minify}: ${difference}\n--- page ---\n${html}`,
          );
          if (failures.length >= 3) break;
        }
      }
      assert.deepStrictEqual(failures, [], failures[0]);
      t.diagnostic(
        `${nesting} pages differ by a documented difference (nesting, a link's media, a lone [class*=x], pseudo-elements alone, <html> subjects, pseudo-classes first)`,
      );
      // The corpus must exercise inlining, not only pages left as they were.
      assert.ok(inlined > PAGES / 2, `only ${inlined} of ${PAGES} pages got a <style>`);
      for (const engine of engines) assert.strictEqual(engine.stats().skipped, 0, engine.stats().lastSkipReason);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
