'use strict';
// Run by scripts/test-angular-versions.js in a folder where one major of @angular/ssr is
// installed (the working directory):
//   node angular-processor-check.js <major> [pages per corpus sheet = 40] [real-sheets folder]
// Ours against that Angular's own critical-CSS processor, driven as its CommonEngine drives it
// (CommonEngine#inlineCriticalCss(html, { publicPath })): the handwritten edge cases and seeded
// pages over the corpus's stylesheets, each in a browser folder inside this one, so that ours
// picks its beasties version from the @angular/ssr installed here, as in a user's app.
// Compared as the differential tests compare (compare.js: <style> texts byte for byte, documents
// parse5-equal). Exits non-zero on a difference that is not documented; prints each kind once.
//
// Documented, counted apart: edge cases marked `todo` for this beasties version
// (docs/critical-css-differences.md).
//
// Angular 22.2's AppEngine runs another engine, beasties/runtime over plans @angular/build
// compiles (manifest.js: compileSheet + encodePlan), with `preloadFonts: true`. It is driven here
// the same way (the plan compiled with this folder's beasties/compiler, the nonce the page's
// ngCspNonce as @angular/build's findNonce reads it from index.html) and measured: printed, not
// asserted, since ours writes the CommonEngine's and the build's output.
// scripts/appengine-runtime-diff.js sorts those differences by cause (format, selection).
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { CriticalCssEngine } = require('../lib/critical-css/engine');
const { beastiesVersion } = require('../lib/critical-css/beasties-version');
const { compareOutputs, classifyDifference } = require('../test/js/critical-css/compare');
const { CASES } = require('../test/js/critical-css/edge-case-pages');
const { stylesheets, vocabulary, generatePage, variantFor } = require('../test/js/critical-css/corpus');

const { realSheets } = require('./css-corpus');

const major = Number(process.argv[2]);
const CORPUS = process.argv[4] || process.env.ANGULAR_CSS_CORPUS;
const REAL_PAGES = Number(process.env.ANGULAR_CSS_CORPUS_PAGES || 10); // pages per real sheet
const PAGES = Number(process.argv[3] || process.env.ANGULAR_PROCESSOR_PAGES || 40);
async function loadCommonEngine() {
  const entry = path.join(process.cwd(), 'processor-check.mjs');
  fs.writeFileSync(entry, "import '@angular/compiler';\nexport { CommonEngine } from '@angular/ssr/node';\n");
  const { CommonEngine } = await import(pathToFileURL(entry).href);
  return CommonEngine;
}

// Angular 22.2's AppEngine processor for one stylesheet and nonce, as ssr.mjs creates it.
async function loadAppEngineProcessor() {
  const entry = path.join(process.cwd(), 'processor-check-runtime.mjs');
  fs.writeFileSync(
    entry,
    "export { createProcessor } from 'beasties/runtime';\nexport { compileSheet, encodePlan } from 'beasties/compiler';\n",
  );
  const { createProcessor, compileSheet, encodePlan } = await import(pathToFileURL(entry).href);
  return (css, nonce) =>
    createProcessor([encodePlan(compileSheet(css, { href: 'styles.css' }))], {
      preload: 'media-script',
      nonce,
      preloadFonts: true,
      inlineFonts: true,
      noscriptFallback: true,
      cache: true,
      logger: { warn: () => {} },
    }).process;
}

// The page as a browser builds it where Angular 21's parser (htmlparser2 10) does not: an <a>
// opened inside an open <a>, or a heading inside an open heading, closes the outer one first
// (the HTML parsing algorithm; htmlparser2 12, Angular 22's and ours, does the same).
function browserNesting(html) {
  let openA = 0;
  const headings = [];
  return html.replace(/<(\/?)(a|h[1-6])\b[^>]*>/gi, (tag, close, name) => {
    const lower = name.toLowerCase();
    if (lower === 'a') {
      if (close) {
        openA = Math.max(0, openA - 1);
        return tag;
      }
      const closing = openA > 0 ? '</a>' : '';
      openA = 1;
      return closing + tag;
    }
    if (close) {
      headings.pop();
      return tag;
    }
    const closing = headings.length ? `</${headings.pop()}>` : '';
    headings.push(lower);
    return closing + tag;
  });
}

const styleTexts = (html) => [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('\n');

const NONCE_RE = /\sngcspnonce\s*=\s*"([^"]*)"/i;

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
  const counts = { same: 0, documented: 0, different: 0 };
  const appEngine = major >= 22 ? await loadAppEngineProcessor() : null;
  const appCounts = { same: 0, different: 0 };
  const appKinds = new Map();
  const judgeAppEngine = (what, css, html, ours) => {
    const nonce = NONCE_RE.exec(html)?.[1];
    const difference = compareOutputs(ours, appEngine(css, nonce)(html));
    if (difference === null) return appCounts.same++;
    appCounts.different++;
    const kind = difference.split(':')[0].replace(/\d+/g, 'n');
    if (!appKinds.has(kind)) appKinds.set(kind, `${what}: ${difference.slice(0, 400)}`);
  };
  const kinds = new Map();
  const note = (kind, detail) => {
    if (!kinds.has(kind)) kinds.set(kind, detail);
  };
  const judge = async (what, css, ours, theirs, todo, misnested) => {
    const found = classifyDifference(ours, theirs, [css]);
    if (found === null) return counts.same++;
    const { difference } = found;
    // CSS nesting, a link's media, a lone [class*=x], pseudo-elements alone, <html> subjects: ours paints as the
    // browser (docs/critical-css-differences.md)
    if (found.documented) {
      note(`documented: ${found.documented}`, what);
      return counts.documented++;
    }
    if (todo) {
      note(`documented: ${todo}`, what);
      return counts.documented++;
    }
    // Angular 21 on the page as a browser nests it writes our <style>s: ours is the browser's tree
    if (misnested && styleTexts(await misnested()) === styleTexts(ours)) {
      note("documented: misnested <a> / headings, ours follows the browser's tree, Angular 21's does not", what);
      return counts.documented++;
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
      await judge(`edge case "${c.name}"`, c.css, ours, theirs, c.todo?.[beasties]);
      if (appEngine) judgeAppEngine(`edge case "${c.name}"`, c.css, c.html, ours);
    }
    const sheets = [
      ...stylesheets().map((sheet) => ({ ...sheet, pages: PAGES })),
      ...realSheets(CORPUS).map((sheet) => ({ ...sheet, pages: REAL_PAGES })),
    ];
    for (const sheet of sheets) {
      const dir = browserFolder(sheet.css);
      const engine = new CriticalCssEngine({ path: dir });
      const vocab = vocabulary(sheet.css);
      for (let seed = 1; seed <= sheet.pages; seed++) {
        const html = generatePage(vocab, seed, variantFor(seed));
        const theirs = await angular.inlineCriticalCss(html, { publicPath: dir });
        const ours = engine.process(html);
        const asBrowser = browserNesting(html);
        const misnested =
          beasties === '0.4' && asBrowser !== html
            ? () => angular.inlineCriticalCss(asBrowser, { publicPath: dir })
            : undefined;
        await judge(`${sheet.name} seed ${seed}`, sheet.css, ours, theirs, undefined, misnested);
        if (appEngine && seed <= 10) judgeAppEngine(`${sheet.name} seed ${seed}`, sheet.css, html, ours);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `angular ${major}: @angular/ssr ${version} (beasties ${beasties} picked from it), CommonEngine's processor: ` +
      `${counts.same} same, ${counts.documented} documented differences, ${counts.different} other differences`,
  );
  for (const [kind, first] of kinds) console.log(`  ${kind}, first: ${first}`);
  if (appEngine) {
    console.log(
      `angular ${major}: AppEngine's beasties/runtime (measured, not asserted): ${appCounts.same} same, ` +
        `${appCounts.different} different`,
    );
    for (const [kind, first] of appKinds) console.log(`  ${kind}, first: ${first}`);
  }
  if (counts.different > 0) process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
