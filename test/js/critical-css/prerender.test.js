'use strict';
// ssr-native-critical-css (bin/) and inlinePrerendered (lib/critical-css/prerender.js) over a
// generated build folder: real Bootstrap, a seeded mix of its classes per page, pages nested as
// Angular's prerenderer writes them (route/index.html). Every page inlined as inlineCriticalCss
// inlines it with Angular's build-time options, a second run changes nothing, pages already
// inlined and pages whose stylesheet is missing are left as they were, exit codes as documented.
const test = require('node:test');
const assert = require('node:assert');
const crypto = require('crypto');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { mulberry32 } = require('../helpers/seeded-random');
const { inlineCriticalCss } = require('../../../lib/express/critical-css');
const { inlineFiles, angularBuildTime, isInlined, workerCount } = require('../../../lib/critical-css/prerender');

const BIN = path.join(__dirname, '..', '..', '..', 'bin', 'ssr-native-critical-css.js');
const BOOTSTRAP = require.resolve('bootstrap/dist/css/bootstrap.css');
const SEED = Number(process.env.SEED || 4301);
const CLASSES = ['container', 'row', 'col-md-6', 'btn', 'btn-primary', 'card', 'card-body', 'navbar', 'alert'];
const SHEET = 'styles-5INURTSO.css';

function page(random, extra = '', context = ' ng-server-context="ssg"') {
  const body = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
    const cls = CLASSES[Math.floor(random() * CLASSES.length)];
    return `<div class="${cls}">${cls}</div>`;
  }).join('');
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>P</title>` +
    `<base href="/"><link rel="stylesheet" href="${SHEET}">${extra}</head>` +
    `<body><app-root ng-version="21.2.0"${context}>${body}</app-root>` +
    `<script src="main-ABC.js" type="module" defer=""></script></body></html>`
  );
}

// a build folder of `count` pages: index.html and products/<i>/index.html
function buildFolder(count, seed = SEED) {
  const random = mulberry32(seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prerender-'));
  fs.copyFileSync(BOOTSTRAP, path.join(dir, SHEET));
  // index.csr.html: the client-side shell, inlined by @angular/build after the build
  const pages = { 'index.html': page(random), 'index.csr.html': page(random, '', '') };
  for (let i = 0; i < count - 2; i++) pages[`products/${i}/index.html`] = page(random);
  for (const [name, html] of Object.entries(pages)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), html);
  }
  return { dir, pages };
}

// An app folder holding @angular/ssr at `version` (its package.json: what the lookup reads).
function appWith(version) {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'prerender-app-'));
  fs.mkdirSync(path.join(app, 'node_modules', '@angular', 'ssr'), { recursive: true });
  fs.writeFileSync(
    path.join(app, 'node_modules', '@angular', 'ssr', 'package.json'),
    JSON.stringify({ name: '@angular/ssr', version }),
  );
  return app;
}

// The command run from an Angular 22.2 app, as a user runs it after ng build (the build folders
// below are written outside it, in the temp directory).
const APP = appWith('22.2.0');

function runIn(cwd, ...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const run = (...args) => runIn(APP, ...args);

test.after(() => fs.rmSync(APP, { recursive: true, force: true }));

function snapshot(dir, names) {
  return Object.fromEntries(
    names.map((n) => {
      const file = path.join(dir, n);
      const stat = fs.statSync(file);
      return [n, { bytes: fs.readFileSync(file, 'utf8'), ino: stat.ino, mtime: stat.mtimeMs }];
    }),
  );
}

test('every page inlined as Angular inlines it (prerendered: @angular/ssr, the shell: @angular/build), across workers', () => {
  const { dir, pages } = buildFolder(120);
  const r = run(dir, '--jobs', '2');
  assert.strictEqual(r.code, 0, `seed ${SEED}: ${r.stderr}`);
  assert.match(r.stdout, /120 inlined, 0 already inlined, 0 unchanged, 0 failed of 120 pages/);
  assert.strictEqual(r.stderr, '');
  // prerendered pages as @angular/ssr's processor inlines them while rendering (minify off)
  const rendered = { browserDistFolder: dir, name: 'prerender-test-ssr' };
  // the shell as @angular/build's processor inlines it (minify on in production)
  const built = { browserDistFolder: dir, minify: true, name: 'prerender-test-build' };
  for (const [name, html] of Object.entries(pages)) {
    const written = fs.readFileSync(path.join(dir, name), 'utf8');
    assert.ok(isInlined(written), `seed ${SEED} ${name}: not inlined`);
    assert.match(written, /<style>[^<]+<\/style><link rel="stylesheet" href="styles-5INURTSO.css" media="print"/);
    const expected =
      name === 'index.csr.html' ? angularBuildTime(inlineCriticalCss(html, built)) : inlineCriticalCss(html, rendered);
    assert.strictEqual(written, expected, `seed ${SEED} ${name}`);
  }
  const shell = fs.readFileSync(path.join(dir, 'index.csr.html'), 'utf8');
  // @angular/build drops the empty value of defer and gives data-beasties-container one
  assert.match(shell, /type="module" defer><\/script>/);
  assert.match(shell, /<html lang="en" data-beasties-container="">/);
  assert.match(shell, /--bs-blue:#0d6efd/); // minified
  assert.match(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), /--bs-blue: #0d6efd/); // not
  assert.deepStrictEqual(
    fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file left behind',
  );
});

test('threads: by default one per 2,000 pages, at most one per core; --jobs: that many, at most one per page', () => {
  // by default, with cores to spare: the calling thread alone up to 2,000 pages
  const byDefault = (pages) => workerCount(pages, undefined, 64);
  assert.deepStrictEqual(
    [0, 1, 2000, 2001, 4000, 4001, 10000].map(byDefault),
    [0, 1, 1, 2, 2, 3, 5],
    'pages -> threads, 64 cores',
  );
  // ... and no more than the cores
  assert.strictEqual(workerCount(100000, undefined, 4), 4);
  assert.strictEqual(workerCount(2001, undefined, 1), 1);
  // jobs given: that many, whatever the page count, but not more threads than pages
  assert.strictEqual(workerCount(120, 2, 64), 2);
  assert.strictEqual(workerCount(120, 8, 1), 8);
  assert.strictEqual(workerCount(3, 8, 64), 3);
  assert.strictEqual(workerCount(0, 8, 64), 0);
});

test('a second run changes nothing: every page is already inlined, no file rewritten', () => {
  const { dir, pages } = buildFolder(60);
  assert.strictEqual(run(dir).code, 0);
  const before = snapshot(dir, Object.keys(pages));
  const r = run(dir);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /0 inlined, 60 already inlined, 0 unchanged, 0 failed of 60 pages/);
  assert.deepStrictEqual(snapshot(dir, Object.keys(pages)), before);
});

test('a page Angular already inlined (its deferred link, or ngCspMedia) is left alone', () => {
  const { dir } = buildFolder(3);
  const deferred =
    `<link rel="stylesheet" href="${SHEET}" media="print" onload="this.media='all'">` +
    `<noscript><link rel="stylesheet" href="${SHEET}"></noscript>`;
  const angular = page(mulberry32(1)).replace(
    `<link rel="stylesheet" href="${SHEET}">`,
    `<style>.x{}</style>${deferred}`,
  );
  const csp = page(mulberry32(2)).replace(`href="${SHEET}">`, `href="${SHEET}" media="print" ngCspMedia="all">`);
  fs.writeFileSync(path.join(dir, 'angular.html'), angular);
  fs.writeFileSync(path.join(dir, 'csp.html'), csp);
  const before = snapshot(dir, ['angular.html', 'csp.html']);
  const r = run(dir);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /3 inlined, 2 already inlined, 0 unchanged, 0 failed of 5 pages/);
  assert.deepStrictEqual(snapshot(dir, ['angular.html', 'csp.html']), before);
});

test('a page whose stylesheet is missing is left unchanged, with a warning naming it; exit 0', () => {
  const { dir } = buildFolder(2);
  const lost = page(mulberry32(3)).replace(SHEET, 'gone-123.css');
  fs.mkdirSync(path.join(dir, 'lost'));
  fs.writeFileSync(path.join(dir, 'lost', 'index.html'), lost);
  const r = run(dir);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 inlined, 0 already inlined, 1 unchanged, 0 failed of 3 pages/);
  assert.strictEqual(r.stderr, 'warning: lost/index.html: stylesheet not found (gone-123.css), left unchanged\n');
  assert.strictEqual(fs.readFileSync(path.join(dir, 'lost', 'index.html'), 'utf8'), lost);
});

test('--deploy-url is stripped from hrefs (publicPath) as Angular strips deployUrl', () => {
  const { dir } = buildFolder(1);
  const html = page(mulberry32(4)).replace(`href="${SHEET}"`, `href="/cdn/${SHEET}"`);
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  const r = run(dir, '--deploy-url', '/cdn/');
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(
    fs.readFileSync(path.join(dir, 'index.html'), 'utf8'),
    /<style>[^<]*\.btn|<style>[^<]*\.container|<style>/,
  );
  assert.ok(isInlined(fs.readFileSync(path.join(dir, 'index.html'), 'utf8')));
});

test("whose output: the browser folder's Angular, else the current directory's, else 22's with a warning", () => {
  const app21 = appWith('21.2.24');
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'prerender-nowhere-'));
  try {
    const written = (dir) => fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    const angular21 = /<link rel="stylesheet" href="styles-5INURTSO.css" media="print" onload="this.media='all'">/;
    const angular22 = /<link rel="stylesheet" href="styles-5INURTSO.css" media="print" data-beasties-media="all">/;

    // a build written outside the app, the command run from the app
    let { dir } = buildFolder(1);
    let r = runIn(app21, dir);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /^critical CSS \(as Angular 21\.2\.24 writes it, beasties 0\.4\): 2 inlined/);
    assert.strictEqual(r.stderr, '');
    assert.match(written(dir), angular21);

    // the build inside the app, the command run from anywhere
    ({ dir } = buildFolder(1));
    const inside = path.join(app21, 'dist', 'app', 'browser');
    fs.mkdirSync(path.dirname(inside), { recursive: true });
    fs.renameSync(dir, inside);
    r = runIn(elsewhere, inside);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(written(inside), angular21);

    // no Angular anywhere: Angular 22's output, and a warning saying so
    ({ dir } = buildFolder(1));
    r = runIn(elsewhere, dir);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /^critical CSS \(beasties 0\.5\): 2 inlined/);
    assert.match(r.stderr, /^warning: no @angular\/ssr found from .* pass --beasties 0\.4 for Angular 21\n$/);
    assert.match(written(dir), angular22);

    // --beasties decides, without a warning; a version that is not one is wrong usage
    ({ dir } = buildFolder(1));
    r = runIn(elsewhere, dir, '--beasties', '0.4');
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stderr, '');
    assert.match(written(dir), angular21);
    r = runIn(elsewhere, dir, '--beasties', '0.6');
    assert.strictEqual(r.code, 2);
    assert.match(
      r.stderr,
      /beasties must be '0\.4' \(Angular 21\) or '0\.5' \(Angular 22\) \(received type string \("0\.6"\)\)/,
    );
  } finally {
    fs.rmSync(app21, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('exit codes: 2 for wrong usage or no such folder, 1 when a page cannot be read or written', () => {
  assert.strictEqual(run().code, 2);
  assert.match(run().stderr, /the browser folder is missing/);
  assert.strictEqual(run('--bogus', '.').code, 2);
  assert.strictEqual(run('a', 'b').code, 2);
  assert.strictEqual(run('.', '--jobs', '0').code, 2);
  assert.strictEqual(run(path.join(os.tmpdir(), 'no-such-build-folder-4301')).code, 2);
  assert.strictEqual(run('--help').code, 0);
  const { dir } = buildFolder(1);
  const result = inlineFiles([path.join(dir, 'index.html'), path.join(dir, 'vanished.html')], {
    folder: dir,
    minify: true,
  });
  assert.deepStrictEqual(
    { inlined: result.inlined, failed: result.failed, warnings: result.warnings },
    { inlined: 1, failed: 1, warnings: ['vanished.html: cannot read (ENOENT)'] },
  );
});

test('autoCsp: the onload handler becomes ngCspMedia after @angular/build loader script', () => {
  const html =
    `<html><head><style>.a{}</style><link rel="stylesheet" href="s.css" media="print" onload="this.media='all'">` +
    `<noscript><link rel="stylesheet" href="s.css"></noscript></head><body></body></html>`;
  const out = angularBuildTime(html, true);
  assert.match(out, /<script>\n\(\(\) => \{\n {2}const CSP_MEDIA_ATTR = 'ngCspMedia';/);
  assert.match(out, /<\/script><link rel="stylesheet" href="s.css" media="print" ngCspMedia="all"><noscript>/);
  assert.doesNotMatch(out, /onload/);
  assert.strictEqual(angularBuildTime(html, false), html);
});

test("autoCsp on Angular 22.2's loader: its hash joins the policy autoCsp wrote, once", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prerender-csp-'));
  try {
    fs.writeFileSync(path.join(dir, 's.css'), '.a{color:red}');
    const policy = (hashes) =>
      `<meta http-equiv="Content-Security-Policy" content="script-src 'strict-dynamic'${hashes} https:${
        hashes ? " 'unsafe-inline'" : ''
      };object-src 'none';base-uri 'self';">`;
    for (const hashes of ['', " 'sha256-AAAA'"]) {
      const html =
        `<!doctype html><html><head>${policy(hashes)}<link rel="stylesheet" href="s.css"></head>` +
        '<body><p class="a">x</p></body></html>';
      const inlined = inlineCriticalCss(html, { browserDistFolder: dir, beasties: '0.5' });
      const out = angularBuildTime(inlined, true);
      const script = /<script>([^<]*)<\/script><\/body>/.exec(out);
      assert.ok(script, out);
      const hash = `'sha256-${crypto.createHash('sha256').update(script[1]).digest('base64')}'`;
      assert.ok(out.includes(`script-src 'strict-dynamic'${hashes} ${hash} https: 'unsafe-inline';`), out);
      assert.strictEqual(angularBuildTime(out, true), out, 'added once');
      assert.ok(!angularBuildTime(inlined, false).includes(hash), 'only with autoCsp');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a page Angular 22.2's AppEngine inlined at build time (no container attribute) counts as inlined", () => {
  // beasties/runtime writes no data-beasties-container: the deferred link is the only mark
  const runtime =
    '<!doctype html><html><head><style>.a{color:red}</style>' +
    '<link rel="stylesheet" href="s.css" media="print" data-beasties-media="all">' +
    '<noscript><link rel="stylesheet" href="s.css"></noscript></head><body><p class="a">x</p></body></html>';
  assert.ok(isInlined(runtime));
  assert.ok(!isInlined(runtime.replace(' media="print" data-beasties-media="all"', '')));
});

test('server output mode: the pages in server/assets-chunks are left as built, with a warning saying so', () => {
  // dist/<app>/ as `outputMode: 'server'` writes it: browser/ and, for AppEngine, every page's
  // copy compiled into server/assets-chunks/<path>_html.mjs (what the engine serves)
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'prerender-dist-'));
  try {
    const { dir, pages } = buildFolder(3);
    const browser = path.join(dist, 'browser');
    fs.renameSync(dir, browser);
    const chunks = path.join(dist, 'server', 'assets-chunks');
    fs.mkdirSync(chunks, { recursive: true });
    for (const name of ['index.html', 'index.csr.html'])
      fs.writeFileSync(path.join(chunks, `${name.replace(/[./]/g, '_')}.mjs`), `export default \`${pages[name]}\`;`);
    const before = snapshot(chunks, fs.readdirSync(chunks));
    const r = runIn(dist, 'browser');
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /3 inlined, 0 already inlined, 0 unchanged, 0 failed of 3 pages/);
    assert.strictEqual(
      r.stderr,
      'warning: no @angular/ssr found from ' +
        `${browser} or the current directory: pages written as Angular 22 writes them (beasties 0.5); ` +
        'run the command from the app, or pass --beasties 0.4 for Angular 21\n' +
        'warning: server/assets-chunks: 2 page(s) compiled into the server bundle (server output mode), which ' +
        'AngularNodeAppEngine serves, are not rewritten by this command; the criticalCss middleware in front ' +
        'of the engine inlines them as they are sent\n',
    );
    assert.deepStrictEqual(snapshot(chunks, fs.readdirSync(chunks)), before);
  } finally {
    fs.rmSync(dist, { recursive: true, force: true });
  }
});
