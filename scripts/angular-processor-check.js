'use strict';
// Run by scripts/test-angular-versions.js in a folder where one major of @angular/ssr is
// installed (the working directory): node angular-processor-check.js <major> [pages per sheet]
// Ours against that Angular's own critical-CSS processor, driven as its CommonEngine drives it
// (CommonEngine#inlineCriticalCss(html, { publicPath })): the handwritten edge cases and seeded
// pages over the corpus's stylesheets, each in a browser folder inside this one, so that ours
// picks its beasties version from the @angular/ssr installed here, as in a user's app.
// Compared as the differential tests compare (compare.js: <style> texts byte for byte, documents
// parse5-equal). Exits non-zero on a difference that is not documented; prints each kind once.
//
// Documented, counted apart:
// - edge cases marked `todo` for this beasties version (docs/critical-css-differences.md);
// - Angular 22.2+ defers a stylesheet with beasties 0.5's `preload: 'media-script'`
//   (`data-beasties-media` on the link, one script at the end of <body>) where ours writes
//   Angular 21's loader (`onload="this.media=…"`, or `ngCspMedia` and Angular 21's script under a
//   CSP nonce): such a page is compared once more with both loaders written one neutral way, and
//   counts as "loader only" when that is all that differs.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { CriticalCssEngine } = require('../lib/critical-css/engine');
const { beastiesVersion } = require('../lib/critical-css/beasties-version');
const { compareOutputs } = require('../test/js/critical-css/compare');
const { CASES } = require('../test/js/critical-css/edge-case-pages');
const { stylesheets, vocabulary, generatePage, variantFor } = require('../test/js/critical-css/corpus');

const major = Number(process.argv[2]);
const PAGES = Number(process.argv[3] || process.env.ANGULAR_PROCESSOR_PAGES || 40);
const MEDIA_SCRIPT =
  "document.querySelectorAll('link[data-beasties-media]').forEach(function(l){l.media=l.getAttribute('data-beasties-media');l.removeAttribute('data-beasties-media')})";

async function loadCommonEngine() {
  const entry = path.join(process.cwd(), 'processor-check.mjs');
  fs.writeFileSync(entry, "import '@angular/compiler';\nexport { CommonEngine } from '@angular/ssr/node';\n");
  const { CommonEngine } = await import(pathToFileURL(entry).href);
  return CommonEngine;
}

// Either loader of a deferred stylesheet written one neutral way: Angular 22's media-script
// (data-beasties-media, one script at the end of <body>) and Angular 21's (onload, or with a CSP
// nonce ngCspMedia and its load-listener script before the link), which is what ours writes.
function neutralLoader(html) {
  return html
    .replace(/<script(?: nonce="[^"]*")?>([^<]*)<\/script>/g, (whole, body) =>
      body === MEDIA_SCRIPT || body.includes("const CSP_MEDIA_ATTR = 'ngCspMedia'") ? '' : whole,
    )
    .replace(/ (?:data-beasties-media|ngCspMedia)="([^"]*)"/g, ' data-deferred="$1"')
    .replace(/ onload="this\.media='([^']*)'"/g, ' data-deferred="$1"');
}

async function main() {
  // Angular's processor reports each stylesheet's selector errors through console.warn
  console.warn = () => {};
  const CommonEngine = await loadCommonEngine();
  const { version } = JSON.parse(fs.readFileSync('node_modules/@angular/ssr/package.json', 'utf8'));
  const work = fs.mkdtempSync(path.join(process.cwd(), 'processor-check-'));
  let folders = 0;
  // a folder per stylesheet: CommonEngine's processor caches what it read by path
  const browserFolder = (css) => {
    const dir = path.join(work, `app${folders++}`, 'browser');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'styles.css'), css);
    return dir;
  };
  const beasties = beastiesVersion(undefined, browserFolder(''));
  const counts = { same: 0, documented: 0, loaderOnly: 0, different: 0 };
  const kinds = new Map();
  const note = (kind, detail) => {
    if (!kinds.has(kind)) kinds.set(kind, detail);
  };
  const judge = (what, ours, theirs, todo) => {
    const difference = compareOutputs(ours, theirs);
    if (difference === null) return counts.same++;
    if (todo) {
      note(`documented: ${todo}`, what);
      return counts.documented++;
    }
    if (major >= 22 && compareOutputs(neutralLoader(ours), neutralLoader(theirs)) === null) {
      note("loader only: Angular 22's media-script where ours writes onload", what);
      return counts.loaderOnly++;
    }
    note(`different: ${difference.split(':')[0]}`, `${what}: ${difference}`);
    counts.different++;
  };
  try {
    const angular = new CommonEngine({});
    for (const c of CASES) {
      if (c.minify) continue; // CommonEngine never minifies (compress: false)
      const dir = browserFolder(c.css);
      const ours = new CriticalCssEngine({ path: dir }).process(c.html);
      const theirs = await angular.inlineCriticalCss(c.html, { publicPath: dir });
      judge(`edge case "${c.name}"`, ours, theirs, c.todo?.[beasties]);
    }
    for (const sheet of stylesheets()) {
      const dir = browserFolder(sheet.css);
      const engine = new CriticalCssEngine({ path: dir });
      const vocab = vocabulary(sheet.css);
      for (let seed = 1; seed <= PAGES; seed++) {
        const html = generatePage(vocab, seed, variantFor(seed));
        const theirs = await angular.inlineCriticalCss(html, { publicPath: dir });
        judge(`${sheet.name} seed ${seed}`, engine.process(html), theirs);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `angular ${major}: @angular/ssr ${version} (beasties ${beasties} picked from it), CommonEngine's processor: ` +
      `${counts.same} same, ${counts.loaderOnly} differ only in the stylesheet loader, ` +
      `${counts.documented} documented differences, ${counts.different} other differences`,
  );
  for (const [kind, first] of kinds) console.log(`  ${kind}, first: ${first}`);
  if (counts.different > 0) process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
