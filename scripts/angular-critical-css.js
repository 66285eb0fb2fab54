'use strict';
// For the fixture's end-to-end test: Angular's own critical-CSS output for a page, and the
// comparison issue 36 defines for "the same output" (but for the documented differences,
// compare.js's classifyDifference): every <style> element's text byte for byte,
// and the rest of the document the same once parsed as a browser parses HTML (parse5).
// Angular's output is @angular/ssr's own InlineCriticalCssProcessor (exported as
// ɵInlineCriticalCssProcessor) from the fixture's node_modules, reading the stylesheets from the
// built browser folder, as CommonEngine runs it.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const fixture = require('./angular-fixture');
const assert = require('assert/strict');
const { compareOutputsAllowingDocumented } = require('../test/js/critical-css/compare');

let processor;

/** `html` with its critical CSS inlined by Angular's own processor. */
async function angularInlined(html) {
  if (!processor) {
    // @angular/ssr loads @angular/core's partially compiled classes: the compiler must be there
    // for them to link at run time outside an Angular build
    const modules = path.join(fixture.APP, 'node_modules', '@angular');
    await import(pathToFileURL(path.join(modules, 'compiler', 'fesm2022', 'compiler.mjs')).href);
    const ssr = path.join(modules, 'ssr', 'fesm2022', 'ssr.mjs');
    const { ɵInlineCriticalCssProcessor: InlineCriticalCssProcessor } = await import(pathToFileURL(ssr).href);
    processor = new InlineCriticalCssProcessor((file) => fs.promises.readFile(file, 'utf8'), fixture.BROWSER);
  }
  return processor.process(html);
}

/** Asserts that `actual` is `expected` as the issue defines it (parse5-equal, <style> byte-equal). */
function assertSameDocument(actual, expected, what) {
  assert.match(expected, /<style/, `${what}: Angular inlined a <style>`);
  const difference = compareOutputsAllowingDocumented(actual, expected);
  assert.equal(difference, null, `${what}: ${difference}`);
}

module.exports = { angularInlined, assertSameDocument };
