'use strict';
// What an Angular 22.2 AppEngine user gains in CPU by switching its critical-CSS inlining to ours.
// AppEngine runs beasties/runtime (0.5.4) over plans @angular/build compiles at build time with
// beasties/compiler; this drives it as scripts/appengine-runtime-diff.js does (compileSheet +
// encodePlan, then createProcessor with @angular/ssr 22.2's options: preload 'media-script',
// preloadFonts, inlineFonts, noscriptFallback, the index's nonce, cache: true), with the plans
// compiled and the processors created before the timing, as at a server's start. Ours: CriticalCss
// with beasties: '0.5' and its memo off (memoPages: 0), processSync on the page's UTF-8 bytes (the
// middleware's call), unminified (the CommonEngine's bytes, the default) and with minify: true
// (the runtime always minifies: the like-for-like row).
//
// Workloads: `bootstrap`, the page of `npm run bench -- critical-css` (test/js/helpers/
// critical-css-pages.js, 210 rows, ~51 KB, a distinct user each page) over Bootstrap 5 + Material
// azure-blue; `corpus`, test/js/critical-css/corpus.js's 7 stylesheets x 60 generated pages
// (distinct seeds). The runtime's result cache is keyed by the page's token set: the bootstrap
// pages differ in text only, so with `cache: true` (what AppEngine sets) every timed page is a hit
// (its scan is what it costs); the corpus's pages mostly miss; the `cache off` row renders each.
// The runtime sees each timed page once; ours, memo off, computes every page again, so it runs
// the set 5 (bootstrap) or 15 (corpus) times for a timed window as long. Warm-up first, on other
// pages (100 users; 240 seeds a sheet), twice: with 80 a sheet the runtime was still ~25% slower.
//
// Each candidate and workload runs in a fresh process pinned to one CPU (taskset -c <cpu>), the
// candidates' order rotated every round, reversed every other; CPU time (process.cpuUsage, user +
// system) per page, median of the rounds, and the median of the rounds' ratios to the runtime.
// Bytes (from an untimed pass): the <style> text the page ends with, and the page's growth.
//   node bench/http/micro/critical-css-appengine-runtime.js [rounds = 5] [scale = 1] [cpu = 1]
//   node bench/http/micro/critical-css-appengine-runtime.js --child <candidate> <workload> <scale>
//     -> JSON { pages, usPerPage, pageBytes, styleBytes, growthBytes }
//   candidates: runtime, runtime-nocache, ours, ours-minify; workloads: bootstrap, corpus
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median } = require('../lib/median');

const root = path.join(__dirname, '..', '..', '..');
const CANDIDATES = {
  runtime: 'beasties/runtime 0.5.4, AppEngine 22.2 (cache: true)',
  'runtime-nocache': 'beasties/runtime 0.5.4, cache off',
  ours: "ours, beasties: '0.5' (unminified)",
  'ours-minify': "ours, beasties: '0.5', minify: true",
};
const WORKLOADS = ['bootstrap', 'corpus'];
const REPS = { bootstrap: 5, corpus: 15 };
const ROWS = 210; // bench/http/scenarios/critical-css.js: a 51 KB page
const NONCE_RE = /\sngcspnonce\s*=\s*"([^"]*)"/i;
const STYLE_RE = /<style[^>]*>([\s\S]*?)<\/style>/g;

// { dir, href, css, timed: [html], warm: [html] } per stylesheet of the workload
function workload(name, scale) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-appengine-runtime-'));
  const sheets = [];
  if (name === 'bootstrap') {
    const { stylesheetText, bootstrapPage, STYLESHEET } = require(
      path.join(root, 'test', 'js', 'helpers', 'critical-css-pages'),
    );
    const css = stylesheetText();
    fs.writeFileSync(path.join(tmp, STYLESHEET), css);
    const user = (i) => bootstrapPage(`user-${i}-${process.pid}`, ROWS);
    sheets.push({
      dir: tmp,
      href: STYLESHEET,
      css,
      timed: Array.from({ length: Math.round(200 * scale) }, (_, i) => user(i)),
      warm: Array.from({ length: 100 }, (_, i) => user(-1 - i)),
    });
  } else {
    const { stylesheets, vocabulary, generatePage, variantFor } = require(
      path.join(root, 'test', 'js', 'critical-css', 'corpus'),
    );
    for (const [i, sheet] of stylesheets().entries()) {
      const dir = path.join(tmp, String(i));
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'styles.css'), sheet.css);
      const vocab = vocabulary(sheet.css);
      const gen = (seed) => generatePage(vocab, seed, variantFor(seed));
      sheets.push({
        dir,
        href: 'styles.css',
        css: sheet.css,
        timed: Array.from({ length: Math.round(60 * scale) }, (_, s) => gen(s + 1)),
        warm: Array.from({ length: 240 }, (_, s) => gen(100001 + s)),
      });
    }
  }
  return { sheets, remove: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}

// run(html) for one stylesheet's pages, everything a server does once done here
async function runner(candidate, sheet) {
  if (candidate.startsWith('runtime')) {
    const { compileSheet, encodePlan } = await import('beasties/compiler');
    const { createProcessor } = await import('beasties/runtime');
    const plan = encodePlan(compileSheet(sheet.css, { href: sheet.href }));
    // one processor per app, the nonce @angular/build reads from index.html: one per nonce here
    const processors = new Map();
    const processorFor = (nonce) => {
      if (!processors.has(nonce)) {
        processors.set(
          nonce,
          createProcessor([plan], {
            preload: 'media-script',
            nonce,
            preloadFonts: true,
            inlineFonts: true,
            noscriptFallback: true,
            cache: candidate === 'runtime',
            logger: { warn: () => {} },
          }),
        );
      }
      return processors.get(nonce);
    };
    for (const html of [...sheet.warm, ...sheet.timed]) processorFor(NONCE_RE.exec(html)?.[1]);
    return { input: (html) => html, run: (html) => processorFor(NONCE_RE.exec(html)?.[1]).process(html) };
  }
  const { CriticalCss } = require(path.join(root, 'lib', 'critical-css'));
  const cc = new CriticalCss({
    browserDistFolder: sheet.dir,
    beasties: '0.5',
    minify: candidate === 'ours-minify',
    memoPages: 0,
    warm: false,
  });
  return { input: (html) => Buffer.from(html), run: (html) => cc.processSync(html) };
}

async function child(candidate, name, scale) {
  const { sheets, remove } = workload(name, scale);
  const runs = [];
  for (const sheet of sheets) {
    const r = await runner(candidate, sheet);
    runs.push({ run: r.run, warm: sheet.warm.map(r.input), timed: sheet.timed.map(r.input) });
  }
  for (const { run, warm } of runs) for (let pass = 0; pass < 2; pass++) for (const html of warm) run(html);
  // ours, memo off, computes a page it saw before again: its pages repeat, so that its timed
  // window is as long as the runtime's (distinct pages: its result cache would answer a repeat)
  const reps = candidate.startsWith('ours') ? REPS[name] : 1;
  if (global.gc) global.gc();
  let sink = 0;
  const before = process.cpuUsage();
  for (let rep = 0; rep < reps; rep++)
    for (const { run, timed } of runs) for (const html of timed) sink += run(html).length;
  const used = process.cpuUsage(before);
  // the bytes, from the same pages again (untimed: holding the pages' output while timing would
  // charge the collector's copying of it)
  let pages = 0;
  let styleBytes = 0;
  let growthBytes = 0;
  for (const { run, timed } of runs) {
    for (const html of timed) {
      const out = String(run(html));
      pages++;
      for (const m of out.matchAll(STYLE_RE)) styleBytes += Buffer.byteLength(m[1]);
      growthBytes += Buffer.byteLength(out) - Buffer.byteLength(String(html));
    }
  }
  const inputs = runs.flatMap((r) => r.timed);
  remove();
  return {
    pages,
    usPerPage: (used.user + used.system) / (pages * reps),
    pageBytes: Math.round(inputs.reduce((sum, html) => sum + Buffer.byteLength(String(html)), 0) / pages),
    styleBytes: styleBytes / pages,
    growthBytes: growthBytes / pages,
    sink,
  };
}

function cpuModel() {
  try {
    const text = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const field = (f) => new RegExp(`^${f}\\s*:\\s*(.*)$`, 'm').exec(text)?.[1];
    return `${field('model name')}, family ${field('cpu family')} model ${field('model')}`;
  } catch {
    return os.cpus()[0]?.model || 'unknown';
  }
}

function main() {
  const [rounds = 5, scale = 1, cpu = 1] = process.argv.slice(2).map(Number);
  const pinned = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
  const names = Object.keys(CANDIDATES);
  const samples = {};
  for (let round = 0; round < rounds; round++) {
    for (const name of WORKLOADS) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      if (round % 2 === 1) order.reverse();
      for (const candidate of order) {
        const args = ['--expose-gc', '--no-warnings', __filename, '--child', candidate, name, String(scale)];
        const [cmd, argv] = pinned
          ? ['taskset', ['-c', String(cpu), process.execPath, ...args]]
          : [process.execPath, args];
        const out = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 24 });
        if (out.status !== 0) throw new Error(`${candidate} ${name}: ${out.stderr}`);
        const result = JSON.parse(out.stdout);
        (samples[`${name} ${candidate}`] ||= []).push(result);
        process.stderr.write(
          `round ${round + 1} ${name} ${candidate}: ${result.usPerPage.toFixed(1)} us/page (${result.pages} pages)\n`,
        );
      }
    }
  }
  console.log(
    `${cpuModel()}, Node ${process.version}, ${pinned ? `pinned to CPU ${cpu}` : 'unpinned'}; ` +
      `median of ${rounds} rounds, CPU (user + system) per page`,
  );
  console.log(
    '| pages | candidate | µs/page (rounds min-max) | runtime (AppEngine) ÷ it, per round (min-max) | <style> bytes/page | page growth bytes/page |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  const fixed = (x) => x.toFixed(x >= 100 ? 0 : 1);
  for (const name of WORKLOADS) {
    const list = (candidate) => samples[`${name} ${candidate}`].map((r) => r.usPerPage);
    for (const candidate of names) {
      const us = list(candidate);
      // each round's pair measured seconds apart: the ratio moves less than either side
      const ratios = us.map((x, round) => list('runtime')[round] / x);
      const { styleBytes, growthBytes } = samples[`${name} ${candidate}`][0];
      console.log(
        `| ${name} | ${CANDIDATES[candidate]} | ${fixed(median(us))} (${fixed(Math.min(...us))}-${fixed(Math.max(...us))}) | ` +
          `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}) | ` +
          `${Math.round(styleBytes)} | ${Math.round(growthBytes)} |`,
      );
    }
  }
  const pageBytes = Object.fromEntries(WORKLOADS.map((w) => [w, samples[`${w} ours`][0].pageBytes]));
  console.log(`pages: bootstrap ${pageBytes.bootstrap} bytes each, corpus ${pageBytes.corpus} bytes on average`);
}

if (process.argv[2] === '--child') {
  const [candidate, name, scale] = process.argv.slice(3);
  if (!CANDIDATES[candidate] || !WORKLOADS.includes(name)) {
    process.stderr.write(`unknown candidate or workload: ${candidate} ${name}\n`);
    process.exit(2);
  }
  child(candidate, name, Number(scale || 1)).then(
    (r) => process.stdout.write(JSON.stringify(r) + '\n'),
    (err) => {
      process.stderr.write(String(err && err.stack) + '\n');
      process.exit(1);
    },
  );
} else {
  main();
}
