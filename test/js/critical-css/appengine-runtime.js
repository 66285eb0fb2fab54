'use strict';
// Angular 22.2's AppEngine critical-CSS step: beasties/runtime over a plan beasties/compiler
// compiles (what @angular/build writes into the server manifest: compileSheet + encodePlan),
// driven as @angular/ssr 22.2's AngularServerApp#inlineCriticalCss drives it, with the nonce the
// page's ngCspNonce as @angular/build's findNonce reads it from index.html. Not the Beasties class
// the CommonEngine and the build run (docs/critical-css-differences.md).
//
// beasties is resolved from `from` (the folder scripts/test-angular-versions.js installs
// Angular 22 into, whose node_modules has Angular's own beasties 0.5.4) and, where nothing
// resolves there, from this repository's node_modules (beasties 0.5.4 too, the version
// @angular/build 22.2 depends on).
const fs = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const NONCE_RE = /\sngcspnonce\s*=\s*"([^"]*)"/i;

function resolveFrom(dir, request) {
  try {
    return createRequire(path.join(dir, 'noop.js')).resolve(request);
  } catch {
    return null;
  }
}

/**
 * { process(css, html), version, dir }: process writes the page the AppEngine serves for `html`
 * whose one stylesheet, styles.css, holds `css`; dir is the beasties package it runs.
 */
async function loadAppEngineRuntime(from = process.cwd()) {
  const runtimeFile = resolveFrom(from, 'beasties/runtime') || require.resolve('beasties/runtime');
  const dir = path.dirname(path.dirname(runtimeFile));
  const compilerFile = path.join(dir, 'dist', 'compiler.mjs');
  const { createProcessor } = await import(pathToFileURL(runtimeFile).href);
  const { compileSheet, encodePlan } = await import(pathToFileURL(compilerFile).href);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  // the plan is compiled once per stylesheet (the build does it once) and a processor made once
  // per nonce, for the last stylesheet asked
  let last = { css: null, plan: null, processors: new Map() };
  const process = (css, html) => {
    if (last.css !== css)
      last = { css, plan: encodePlan(compileSheet(css, { href: 'styles.css' })), processors: new Map() };
    const nonce = NONCE_RE.exec(html)?.[1];
    if (!last.processors.has(nonce)) {
      const processor = createProcessor([last.plan], {
        preload: 'media-script',
        nonce,
        preloadFonts: true,
        inlineFonts: true,
        noscriptFallback: true,
        cache: true,
        logger: { warn: () => {} },
      });
      last.processors.set(nonce, processor);
    }
    return last.processors.get(nonce).process(html);
  };
  return { process, version, dir };
}

module.exports = { loadAppEngineRuntime };
