'use strict';
// Which beasties the installed Angular runs, so the engine writes that version's output:
// @angular/ssr 21 bundles beasties 0.4.1 (third_party/beasties) and @angular/build 21 depends
// on it; later majors run 0.5. The `beasties` option ('0.4' or '0.5') overrides the lookup,
// which starts at the browser dist folder (inside the app) and walks up its node_modules.
const fs = require('fs');
const Module = require('module');
const path = require('path');
const { outOfRange } = require('../validate');

const VERSIONS = new Set(['0.4', '0.5']);

// The version field of the @angular/ssr an app in `from` resolves, or null.
function installedAngularSsr(from) {
  for (const dir of Module._nodeModulePaths(from)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, '@angular', 'ssr', 'package.json'), 'utf8'));
      return typeof pkg.version === 'string' ? pkg.version : null;
    } catch {
      // not installed under this folder: the next one up
    }
  }
  return null;
}

function beastiesVersion(option, from = process.cwd()) {
  if (option !== undefined) {
    if (!VERSIONS.has(option)) {
      throw outOfRange('beasties', "'0.4' (Angular 21) or '0.5' (Angular 22)", option);
    }
    return option;
  }
  return beastiesOf(installedAngularSsr(from));
}

/** The beasties an @angular/ssr `version` runs (null: none found, the newest). */
function beastiesOf(version) {
  const major = version === null ? NaN : Number.parseInt(version, 10);
  return major <= 21 ? '0.4' : '0.5';
}

module.exports = { beastiesVersion, beastiesOf, installedAngularSsr };
