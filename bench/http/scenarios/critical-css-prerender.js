'use strict';
// Critical CSS of a prerendered site at build time: the Angular fixture (test/fixtures/angular-app,
// Bootstrap + Material, its catalog/:id route prerendering SSR_NATIVE_CATALOG_PAGES pages) built
// with Angular's inlining (`-c production,inline-critical`) against the production build (inlining
// off) followed by ssr-native-critical-css over its browser folder. Wall time and process CPU
// (user + system, children included: /usr/bin/time) of each; Angular's inlining part is the CPU
// of the first build minus that of the second. Then every page of ours against Angular's: how
// many are the same bytes, how many differ only by the documented differences (compare.js's
// classifier, as the differential tests judge them: docs/critical-css-differences.md), and the
// first difference of the first page that is not the same.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const fixture = require('../../../scripts/angular-fixture');
const { classifyDifference } = require('../../../test/js/critical-css/compare');

const BIN = path.join(__dirname, '..', '..', '..', 'bin', 'ssr-native-critical-css.js');

// { wall, cpu } seconds of `command args` run in `cwd`, its output kept for a failure's message
function timed(command, args, { cwd, env }) {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', command, ...args], {
    cwd,
    env: { ...process.env, NG_CLI_ANALYTICS: 'false', CI: '1', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr || '');
  if (r.status !== 0 || !m) {
    throw new Error(
      `${path.basename(command)} ${args.join(' ')} failed (${r.status}): ${(r.stderr || '').slice(-2000)}`,
    );
  }
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), stdout: r.stdout };
}

function pagesUnder(dir, base = dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) pagesUnder(full, base, out);
    else if (entry.name.endsWith('.html')) out.push(path.relative(base, full));
  }
  return out.sort();
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (s) => JSON.stringify(s.slice(Math.max(0, i - 60), i + 60));
  return `at byte ${i}: Angular ${show(a)} / ours ${show(b)}`;
}

function compare(angularDir, oursDir) {
  const pages = pagesUnder(angularDir);
  let same = 0;
  let sameHead = 0;
  let documented = 0; // pages whose <head> differs only by documented differences
  let firstDiff = null;
  const head = (html) => html.slice(0, html.indexOf('</head>'));
  for (const page of pages) {
    const a = fs.readFileSync(path.join(angularDir, page), 'utf8');
    const b = fs.readFileSync(path.join(oursDir, page), 'utf8');
    if (head(a) === head(b)) sameHead++;
    else if (classifyDifference(b, a)?.documented) documented++;
    if (a === b) same++;
    else if (firstDiff === null) firstDiff = `${page} ${firstDifference(a, b)}`;
  }
  return { pages: pages.length, same, sameHead, documented, firstDiff };
}

module.exports = {
  name: 'critical-css-prerender',
  order: 61,
  question:
    'Critical CSS of a prerendered Angular site at build time: ng build with Angular’s inlining vs ng build with it off + ssr-native-critical-css (build time, process CPU, pages equal to Angular’s).',
  skip() {
    if (!fs.existsSync('/usr/bin/time')) return '/usr/bin/time is not installed (apt-get install time)';
    if (fixture.isInstalled()) return null;
    try {
      fixture.install();
      return null;
    } catch (err) {
      return `could not install test/fixtures/angular-app (${err.message.split('\n')[0]}): run npm run test:angular once`;
    }
  },
  async run({ pick, log }) {
    const count = pick(40, 200, 1000);
    const ng = path.join(fixture.APP, 'node_modules', '.bin', 'ng');
    const env = { SSR_NATIVE_CATALOG_PAGES: String(count) };
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-prerender-'));
    const angularOut = path.join(outDir, 'angular');
    const oursOut = path.join(outDir, 'ours');
    try {
      log(` ${count} catalog pages: ng build with Angular's inlining`);
      const angular = timed(ng, ['build', '-c', 'production,inline-critical', '--output-path', angularOut], {
        cwd: fixture.APP,
        env,
      });
      log(` ${angular.wall.toFixed(1)} s, ${angular.cpu.toFixed(1)} s CPU; ng build with inlining off`);
      const plain = timed(ng, ['build', '-c', 'production', '--output-path', oursOut], { cwd: fixture.APP, env });
      log(` ${plain.wall.toFixed(1)} s, ${plain.cpu.toFixed(1)} s CPU; ssr-native-critical-css`);
      const ours = timed(process.execPath, [BIN, path.join(oursOut, 'browser')], { cwd: fixture.APP, env: {} });
      log(` ${ours.stdout.trim()}`);
      const pages = compare(path.join(angularOut, 'browser'), path.join(oursOut, 'browser'));
      // a speed figure for pages Angular would not have written is no figure: the run fails
      if (pages.sameHead + pages.documented !== pages.pages) {
        throw new Error(
          `${pages.pages - pages.sameHead - pages.documented} of ${pages.pages} pages' <head> differ from Angular's ` +
            `beyond the documented differences: ${pages.firstDiff}`,
        );
      }
      const inliningCpu = angular.cpu - plain.cpu;
      const row = (variant, wall, cpu, note) => ({
        variant,
        'wall s': wall.toFixed(2),
        'CPU s': cpu.toFixed(2),
        'CPU ms/page': ((cpu * 1000) / pages.pages).toFixed(2),
        note,
      });
      return {
        tables: [
          {
            title: `${pages.pages} prerendered pages (${count} catalog/:id), Bootstrap + Material`,
            columns: ['variant', 'wall s', 'CPU s', 'CPU ms/page', 'note'],
            rows: [
              row('ng build, Angular inlining', angular.wall, angular.cpu, ''),
              row('ng build, inlining off', plain.wall, plain.cpu, ''),
              row('Angular inlining part (difference)', angular.wall - plain.wall, inliningCpu, ''),
              row(
                'ssr-native-critical-css',
                ours.wall,
                ours.cpu,
                `${(inliningCpu / ours.cpu).toFixed(0)}x less CPU than Angular's inlining part`,
              ),
              row(
                'ng build, inlining off + ssr-native',
                plain.wall + ours.wall,
                plain.cpu + ours.cpu,
                `${(angular.cpu / (plain.cpu + ours.cpu)).toFixed(2)}x less build CPU`,
              ),
            ],
            notes: [
              `pages byte-identical to Angular's build output: ${pages.same} of ${pages.pages}, ` +
                `the same <head> (critical CSS, deferred links): ${pages.sameHead} of ${pages.pages}, ` +
                `only documented differences (docs/critical-css-differences.md): ${pages.documented}` +
                (pages.firstDiff ? `; first difference: ${pages.firstDiff}` : ''),
              `CPU: user + system of the process and its children (/usr/bin/time); ${os.cpus().length} cores, ` +
                'ssr-native-critical-css with its default threads (one per 2,000 pages, at most one per core), run from the app folder',
            ],
          },
        ],
      };
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  },
};
