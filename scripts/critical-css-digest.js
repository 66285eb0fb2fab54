'use strict';
// One SHA-256 over everything the critical-CSS engine writes for the processor-check corpus
// (scripts/angular-processor-check.js: the edge cases and seeded pages over the corpus's
// stylesheets, plus the real sheets of a corpus folder when one is given), under each option set
// the engine has (beasties 0.4 / 0.5, 'media' / 'media-script', minify, no fonts, no noscript),
// and with the stylesheet linked from a folder (url()s then rewritten against it).
// Run it against two builds to show a change to the C++ core writes the same bytes:
//   SSR_NATIVE_ADDON=old.node node scripts/critical-css-digest.js [pages per sheet = 40] [corpus]
//   node scripts/critical-css-digest.js [pages per sheet = 40] [corpus]
// Prints the digest, the page count, and the digest per option set.
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CriticalCssEngine } = require('../lib/critical-css/engine');
const { CASES } = require('../test/js/critical-css/edge-case-pages');
const { stylesheets, vocabulary, generatePage, variantFor } = require('../test/js/critical-css/corpus');

const PAGES = Number(process.argv[2] || 40);
const CORPUS = process.argv[3];

const OPTION_SETS = [
  { beasties: '0.5' },
  { beasties: '0.5', folder: 'assets/css' },
  { beasties: '0.5', folder: 'assets/css', minify: true },
  { beasties: '0.5', preload: 'media' },
  { beasties: '0.4' },
  { beasties: '0.5', minify: true },
  { beasties: '0.4', minify: true },
  { beasties: '0.5', inlineFonts: false, noscriptFallback: false },
  { beasties: '0.4', preload: 'media', inlineFonts: false },
];

function realSheets(folder) {
  if (!folder) return [];
  const { REAL_SHEETS } = require('./angular-processor-check-sheets');
  return Object.entries(REAL_SHEETS).map(([spec, file]) => {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    return { name, css: fs.readFileSync(path.join(folder, 'node_modules', name, file), 'utf8') };
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-digest-'));
let folders = 0;
const browserFolder = (css) => {
  const dir = path.join(work, `app${folders++}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'styles.css'), css);
  fs.mkdirSync(path.join(dir, 'assets', 'css'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'assets', 'css', 'styles.css'), css);
  return dir;
};

try {
  const all = crypto.createHash('sha256');
  let pages = 0;
  let changed = 0;
  const sheets = [...stylesheets(), ...realSheets(CORPUS)].map((s) => ({ ...s, dir: browserFolder(s.css) }));
  const cases = CASES.map((c) => ({ ...c, dir: browserFolder(c.css) }));
  for (const { folder, ...options } of OPTION_SETS) {
    const linked = (html) => (folder ? html.replaceAll('href="styles.css"', `href="${folder}/styles.css"`) : html);
    const each = crypto.createHash('sha256');
    const add = (what, html, out) => {
      each.update(`${what}\0${out}\0`);
      pages++;
      if (out !== html) changed++;
    };
    for (const c of cases) {
      const html = linked(c.html);
      add(`case ${c.name}`, html, new CriticalCssEngine({ path: c.dir, ...options }).process(html));
    }
    for (const sheet of sheets) {
      const engine = new CriticalCssEngine({ path: sheet.dir, ...options });
      const vocab = vocabulary(sheet.css);
      for (let seed = 1; seed <= PAGES; seed++) {
        const html = linked(generatePage(vocab, seed, variantFor(seed)));
        add(`${sheet.name} ${seed}`, html, engine.process(html));
      }
    }
    const digest = each.digest('hex');
    all.update(digest);
    console.log(`${digest.slice(0, 16)} ${JSON.stringify({ folder, ...options })}`);
  }
  console.log(
    `digest ${all.digest('hex')} over ${pages} pages, ${changed} inlined (${sheets.length} sheets, ${cases.length} cases)`,
  );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
