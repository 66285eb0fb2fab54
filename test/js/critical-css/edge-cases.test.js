'use strict';
// Handwritten stylesheet x page cases the generated corpus does not reach, each checked
// against beasties 0.4 (Angular 21) and 0.5 (Angular 22) configured as Angular's
// InlineCriticalCssProcessor. A failure prints the case.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CriticalCssEngine } = require('../../../lib/critical-css/engine.js');
const { createAngularProcessor } = require('./beasties-angular.js');
const { compareOutputs, styleTexts } = require('./compare.js');

const { CASES } = require('./edge-case-pages.js');

for (const beasties of ['0.4', '0.5']) {
  for (const c of CASES) {
    test(`beasties ${beasties}: ${c.name}`, { todo: c.todo?.[beasties] }, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-edge-'));
      try {
        fs.writeFileSync(path.join(dir, 'styles.css'), c.css);
        const minify = Boolean(c.minify);
        const ours = new CriticalCssEngine({ path: dir, minify, beasties }).process(c.html);
        const theirs = await (await createAngularProcessor({ path: dir, minify, beasties })).process(c.html);
        if (c.browser) {
          // ours is the browser's reading; beasties' text is checked too, so that a beasties
          // that stops writing it shows here
          assert.deepStrictEqual(styleTexts(ours), [c.browser.style], `${c.name}: ours`);
          assert.deepStrictEqual(styleTexts(theirs), [c.browser.theirs], `${c.name}: beasties ${beasties}`);
          return;
        }
        const difference = compareOutputs(ours, theirs);
        assert.strictEqual(
          difference,
          null,
          `${c.name} (beasties ${beasties}, minify ${minify}): ${difference}\n--- css ---\n${c.css}\n--- page ---\n${c.html}`,
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
