'use strict';
// Are the differences between Angular 22.2's AppEngine output and ours visible at first paint?
//   node scripts/appengine-first-paint.js [--sheets 7] [--pages 4] [--seed 1] [--no-edge-cases]
// For a seeded sample of the corpus (test/js/critical-css/corpus.js: `--sheets` stylesheets,
// shuffled by `--seed`, x `--pages` generated pages each) and the handwritten edge cases
// (edge-case-pages.js), two pages: the AppEngine's, beasties/runtime over a plan from
// beasties/compiler driven as @angular/ssr 22.2 drives it (appengine-runtime.js, as
// scripts/appengine-runtime-diff.js), and ours with `beasties: '0.5'` as the CommonEngine writes
// it (unminified). Each is screenshotted in headless chromium by first-paint.test.js's camera
// (first-paint-camera.js: 1024x768, deviceScaleFactor 1, every other origin blocked, animations
// held still):
//   phase 1: the stylesheet request is failed, only the inlined CSS applies: runtime vs ours,
//            and each vs the full render (phase 2 of the page as written);
//   phase 2: the stylesheet loads: each vs the page as written.
// Prints one row per page (bytes of each page, differing pixels) and keeps, for every page where
// some pair differs, the PNGs and the three HTML pages in a temp directory it names. A
// measurement for docs/critical-css-differences.md, not a test: exits 0 whatever it finds,
// non-zero only on an error (chromium missing included).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { CriticalCssEngine } = require('../lib/critical-css/engine');
const { loadAppEngineRuntime } = require('../test/js/critical-css/appengine-runtime');
const { CASES } = require('../test/js/critical-css/edge-case-pages');
const { rng, shuffledStylesheets, vocabulary, generatePage, variantFor } = require('../test/js/critical-css/corpus');
const { openCamera } = require('../test/js/critical-css/first-paint-camera');
const { differingPixels } = require('../test/js/critical-css/png');

const { values: args } = parseArgs({
  options: {
    sheets: { type: 'string', default: '7' },
    pages: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    'no-edge-cases': { type: 'boolean', default: false },
  },
});
const SHEETS = Number(args.sheets);
const PAGES = Number(args.pages);
const SEED = Number(args.seed);
for (const [name, value] of Object.entries({ sheets: SHEETS, pages: PAGES, seed: SEED })) {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`--${name} must be a whole number`);
}

// `--sheets` stylesheets in the seed's order, `--pages` page seeds each, then the edge cases.
function sample() {
  const r = rng(SEED);
  const sheets = shuffledStylesheets(r);
  const out = [];
  for (const sheet of sheets.slice(0, SHEETS)) {
    const vocab = vocabulary(sheet.css);
    for (let i = 0; i < PAGES; i++) {
      const pageSeed = 1 + r.int(1000000);
      const variant = variantFor(pageSeed);
      out.push({
        sheet: sheet.name,
        page: String(pageSeed),
        css: sheet.css,
        html: generatePage(vocab, pageSeed, variant),
        media: variant.media,
      });
    }
  }
  if (!args['no-edge-cases']) {
    for (const c of CASES) out.push({ sheet: 'edge case', page: c.name, css: c.css, html: c.html });
  }
  return out;
}

async function main() {
  console.warn = () => {};
  const runtime = await loadAppEngineRuntime();
  const opened = await openCamera();
  if (opened.skip) throw new Error(`no browser: ${opened.skip}`);
  const { camera } = opened;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'appengine-first-paint-css-'));
  const saved = fs.mkdtempSync(path.join(os.tmpdir(), 'appengine-first-paint-'));
  let savedAny = false;
  const rows = [];
  try {
    console.log(
      `${await camera.version()}, ${os.cpus()[0].model}, Node ${process.version}; ` +
        `AppEngine runtime: beasties ${runtime.version} (${runtime.dir})`,
    );
    console.log(
      `sample: --sheets ${SHEETS} --pages ${PAGES} --seed ${SEED}` +
        `${args['no-edge-cases'] ? ' --no-edge-cases' : ` + ${CASES.length} edge cases`}`,
    );
    console.log(
      'columns: bytes of the runtime page / ours; phase 1 (stylesheet failed): runtime vs ours, runtime vs ' +
        'full render, ours vs full render; phase 2 (stylesheet loaded): runtime vs as written, ours vs as ' +
        'written (differing pixels of 786,432; ! after p2 = on that side the held stylesheet applied in phase 1, ' +
        'or in phase 2 it applies other than as written)',
    );
    const header = [
      'sheet',
      'page',
      'runtime B',
      'ours B',
      'p1 rt/ours',
      'p1 rt/full',
      'p1 ours/full',
      'p2 rt',
      'p2 ours',
    ];
    const widths = [24, 44, 9, 9, 10, 10, 12, 8, 8];
    const line = (cells) =>
      cells
        .map((c, i) => (i < 2 ? String(c).slice(0, widths[i]).padEnd(widths[i]) : String(c).padStart(widths[i])))
        .join(' ');
    console.log(line(header));
    for (const [index, p] of sample().entries()) {
      const dir = path.join(work, `app${index}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'styles.css'), p.css);
      const pages = {
        runtime: runtime.process(p.css, p.html),
        ours: new CriticalCssEngine({ path: dir, beasties: '0.5' }).process(p.html),
        plain: p.html,
      };
      camera.show(pages, p.css);
      const shots = {};
      const odd = { runtime: '', ours: '' };
      camera.holdStylesheet = true;
      for (const name of ['runtime', 'ours']) {
        const { png, applied } = await camera.shot(name);
        shots[`${name}.phase1`] = png;
        if (applied !== 0) odd[name] = '!';
      }
      camera.holdStylesheet = false;
      let plainApplied = 0;
      for (const name of ['plain', 'runtime', 'ours']) {
        const { png, applied } = await camera.shot(name);
        shots[`${name}.phase2`] = png;
        if (name === 'plain') plainApplied = applied;
        else if (applied !== plainApplied) odd[name] = '!';
      }
      const full = shots['plain.phase2'];
      const row = {
        sheet: p.sheet,
        page: p.page,
        media: p.media,
        bytes: [Buffer.byteLength(pages.runtime), Buffer.byteLength(pages.ours)],
        phase1: differingPixels(shots['runtime.phase1'], shots['ours.phase1']),
        runtimeVsFull: differingPixels(shots['runtime.phase1'], full),
        oursVsFull: differingPixels(shots['ours.phase1'], full),
        runtimePhase2: differingPixels(shots['runtime.phase2'], full),
        oursPhase2: differingPixels(shots['ours.phase2'], full),
      };
      rows.push(row);
      const cells = [
        row.sheet,
        row.page,
        row.bytes[0],
        row.bytes[1],
        row.phase1,
        row.runtimeVsFull,
        row.oursVsFull,
        `${row.runtimePhase2}${odd.runtime}`,
        `${row.oursPhase2}${odd.ours}`,
      ];
      console.log(line(cells));
      if (row.phase1 || row.runtimePhase2 || row.oursPhase2) {
        savedAny = true;
        const base = `${String(index).padStart(2, '0')}.${`${p.sheet}.${p.page}`.replace(/[^\w.+-]+/g, '_')}`;
        for (const [name, png] of Object.entries(shots)) fs.writeFileSync(path.join(saved, `${base}.${name}.png`), png);
        for (const [name, html] of Object.entries(pages))
          fs.writeFileSync(path.join(saved, `${base}.${name}.html`), html);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    await camera.close();
    if (!savedAny) fs.rmSync(saved, { recursive: true, force: true });
  }
  const same = rows.filter((r) => r.phase1 === 0).length;
  const differing = rows.filter((r) => r.phase1 !== 0);
  console.log(`${same} of ${rows.length} pages paint identically at first paint (phase 1, runtime vs ours)`);
  if (differing.length > 0) {
    const oursWins = differing.filter((r) => r.oursVsFull < r.runtimeVsFull).length;
    const runtimeWins = differing.filter((r) => r.runtimeVsFull < r.oursVsFull).length;
    console.log(
      `of the ${differing.length} that differ, ours is nearer the full render on ${oursWins}, ` +
        `the runtime's on ${runtimeWins}`,
    );
  }
  const zero = (key) => rows.filter((r) => r[key] === 0).length;
  console.log(
    `phase 1 equals the full render: runtime ${zero('runtimeVsFull')} of ${rows.length}, ` +
      `ours ${zero('oursVsFull')} of ${rows.length}`,
  );
  const phase2 = (key) => rows.filter((r) => r[key] === 0).length;
  console.log(
    `phase 2 (stylesheet loaded) equals the page as written: runtime ${phase2('runtimePhase2')} of ${rows.length}, ` +
      `ours ${phase2('oursPhase2')} of ${rows.length}` +
      `${rows.some((r) => r.media === 'print') ? ' (a media="print" link paints its critical CSS on screen, both sides)' : ''}`,
  );
  console.log(savedAny ? `PNGs and pages of the pages that differ: ${saved}` : 'no page differs: no PNGs kept');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
