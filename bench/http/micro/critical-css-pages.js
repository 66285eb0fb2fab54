'use strict';
// CPU time per page of one critical-CSS candidate, on distinct pages (a Bootstrap page of the
// fixture's kind for a different user each time) against Bootstrap 5 + Angular Material's
// azure-blue theme as one stylesheet. Run pinned, one candidate per process, by
// scenarios/critical-css.js.
// Usage: node micro/critical-css-pages.js <candidate> <pages> <rows>  -> JSON { ms, pageBytes, cssBytes, inlinedBytes }
//   candidates:
//     ssr-native        CriticalCss#processSync on the page's UTF-8 bytes (the middleware's call)
//     beasties          new Beasties(Angular's options) per page, as CommonEngine does (and
//                       AppEngine 17-21 on every miss of its LRU): parse, match, serialize
//     beasties-runtime  beasties/runtime (0.5.4): the stylesheet compiled once (not timed),
//                       createProcessor once, process(html) per page, its default result cache on
const path = require('path');
const fs = require('fs');

const [candidate, pagesArg, rowsArg] = process.argv.slice(2);
const pages = Number(pagesArg);
const rows = Number(rowsArg);
const root = path.join(__dirname, '..', '..', '..');
const { makeDistFolder, bootstrapPage, STYLESHEET } = require(
  path.join(root, 'test', 'js', 'helpers', 'critical-css-pages'),
);

// The options Angular 22.2's CommonEngine gives beasties 0.5.4 (beasties' names; 21's
// InlineCriticalCssProcessor differs only in preload: 'media' and its CSP override).
const ANGULAR_BEASTIES = {
  publicPath: undefined,
  compress: false,
  pruneSource: false,
  reduceInlineStyles: false,
  mergeStylesheets: false,
  preload: 'media-script',
  noscriptFallback: true,
  inlineFonts: true,
  logLevel: 'silent',
};

async function main() {
  const dist = makeDistFolder();
  const css = fs.readFileSync(dist.stylesheet, 'utf8');
  const html = Array.from({ length: pages + 1 }, (_, i) => bootstrapPage(`user-${i}-${process.pid}`, rows));
  let run;
  if (candidate === 'ssr-native') {
    const { CriticalCss } = require(path.join(root, 'lib', 'critical-css'));
    const cc = new CriticalCss({ browserDistFolder: dist.dir, memoPages: 0, warm: false });
    const bytes = html.map((h) => Buffer.from(h));
    run = (i) => cc.processSync(bytes[i]);
  } else if (candidate === 'beasties') {
    const Beasties = require('beasties');
    run = async (i) => {
      // Angular reads the stylesheet through its own cache; here from memory too
      const b = new Beasties({ ...ANGULAR_BEASTIES, path: dist.dir });
      b.readFile = async () => css;
      return b.process(html[i]);
    };
  } else if (candidate === 'beasties-runtime') {
    const { compileSheet } = await import('beasties/compiler');
    const { createProcessor } = await import('beasties/runtime');
    // Angular 22.2's AppEngine options (@angular/ssr's ssr.mjs)
    const processor = createProcessor([compileSheet(css, { href: STYLESHEET })], {
      preload: 'media-script',
      preloadFonts: true,
      noscriptFallback: true,
      inlineFonts: true,
    });
    run = (i) => processor.process(html[i]);
  } else {
    throw new Error(`unknown candidate ${candidate}`);
  }
  const first = await run(pages); // warm-up page (not timed): plans, JIT
  const start = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < pages; i++) sink += (await run(i)).length;
  const used = process.cpuUsage(start);
  dist.remove();
  const inlined = /<style[^>]*>([\s\S]*?)<\/style>/.exec(String(first));
  process.stdout.write(
    JSON.stringify({
      ms: (used.user + used.system) / 1000 / pages,
      pageBytes: Buffer.byteLength(html[0]),
      cssBytes: Buffer.byteLength(css),
      inlinedBytes: inlined ? Buffer.byteLength(inlined[1]) : 0,
      sink,
    }),
  );
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack));
  process.exit(1);
});
