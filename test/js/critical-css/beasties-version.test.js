'use strict';
// The engine writes the output of the beasties the installed Angular runs: the version comes
// from the @angular/ssr an app's folder resolves (21 or older: 0.4), the option overrides it.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { beastiesVersion } = require('../../../lib/critical-css/beasties-version.js');
const { CriticalCssEngine } = require('../../../lib/critical-css/engine.js');

function app(ssrVersion) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'beasties-version-'));
  const browser = path.join(root, 'dist', 'app', 'browser');
  fs.mkdirSync(browser, { recursive: true });
  if (ssrVersion) {
    const ssr = path.join(root, 'node_modules', '@angular', 'ssr');
    fs.mkdirSync(ssr, { recursive: true });
    fs.writeFileSync(path.join(ssr, 'package.json'), JSON.stringify({ name: '@angular/ssr', version: ssrVersion }));
  }
  return { root, browser };
}

test('the installed @angular/ssr picks the beasties version; the option overrides it', () => {
  for (const [installed, expected] of [
    ['21.2.3', '0.4'],
    ['20.3.0', '0.4'],
    ['22.2.0', '0.5'],
    [null, '0.5'],
  ]) {
    const { root, browser } = app(installed);
    try {
      assert.strictEqual(beastiesVersion(undefined, browser), expected, `@angular/ssr ${installed}`);
      assert.strictEqual(beastiesVersion('0.5', browser), '0.5');
      assert.strictEqual(beastiesVersion('0.4', browser), '0.4');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  assert.throws(() => beastiesVersion('0.6'), RangeError);
  assert.throws(() => beastiesVersion(4), RangeError);
});

test("an app on Angular 21 gets beasties 0.4's output without the option", () => {
  const { root, browser } = app('21.2.3');
  try {
    // 0.4 writes url()s as the stylesheet has them; 0.5 resolves them against its href.
    fs.mkdirSync(path.join(browser, 'css'));
    fs.writeFileSync(path.join(browser, 'css', 'styles.css'), '.a{background:url(img/a.png)}');
    const html =
      '<html><head><link rel="stylesheet" href="css/styles.css"></head><body><p class="a">x</p></body></html>';
    const style = (engine) => engine.process(html).match(/<style>(.*?)<\/style>/)[1];
    assert.strictEqual(style(new CriticalCssEngine({ path: browser })), '.a{background:url(img/a.png)}');
    assert.strictEqual(
      style(new CriticalCssEngine({ path: browser, beasties: '0.5' })),
      '.a{background:url(css/img/a.png)}',
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
