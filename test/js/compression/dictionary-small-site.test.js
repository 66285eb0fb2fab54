'use strict';
// A small site and compression's dictionary (Express, real servers):
// - `dictionary: true` on a site with fewer distinct shareable paths than the learner needs
//   never gets dcz: once enough shareable HTML responses came, one warning says so and names
//   the command below (the count lowered here through SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER);
// - `ssr-native-dictionary <folder> -o <file>` builds a dictionary from the folder's *.html
//   (the learner's builder), and `dictionary: '<file>'` answers a request naming it in
//   Available-Dictionary with dcz, which decodes to the page; its usage errors exit 2, too few
//   pages exit 1.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const express = require('express53');
const compression = require('../../../lib/express/compression');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const native = require('../../../lib/native');
const { request } = require('../helpers/http');
const { createSite } = require('../helpers/dictionary-site');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const BIN = path.join(__dirname, '../../../bin/ssr-native-dictionary.js');
const CODE = 'SSR_NATIVE_DICTIONARY_TOO_FEW_PAGES';
const ACCEPT = 'gzip, deflate, br, zstd, dcz';

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest();

function listen(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

// An Express app sending page n of `site` at /page/n, public for a minute, behind `middleware`.
function siteApp(site, middleware) {
  const app = express();
  app.use(middleware);
  app.get('/page/:n', (req, res) => {
    res.set('Cache-Control', 'public, max-age=60');
    res.type('html').send(site.page(Number(req.params.n)));
  });
  return app;
}

test('dictionary: true on a site with too few paths: one warning naming the command', { skip }, async () => {
  const previous = process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER;
  process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER = '40';
  let middleware;
  try {
    middleware = compression({ dictionary: true });
  } finally {
    if (previous === undefined) delete process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER;
    else process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER = previous;
  }
  const { url, close } = await listen(siteApp(createSite({ seed: 21 }), middleware));
  const warnings = [];
  const onWarning = (warning) => {
    if (warning.code === CODE) warnings.push(warning);
  };
  process.on('warning', onWarning);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  try {
    // 14 pages, as a small prerendered site has, visited over and over
    for (let i = 0; i < 39; i++) await request(`${url}/page/${i % 14}`);
    await settle();
    assert.equal(warnings.length, 0, 'not before 40 shareable responses');
    for (let i = 39; i < 120; i++) await request(`${url}/page/${i % 14}`);
    await settle();
    assert.equal(warnings.length, 1, 'once');
    assert.match(warnings[0].message, /40 shareable HTML responses came from only 14 distinct paths/);
    assert.match(warnings[0].message, /at least 32/);
    assert.match(warnings[0].message, /npx ssr-native-dictionary dist\/<app>\/browser/);
    assert.equal(middleware.dictionary.current, null);
  } finally {
    process.off('warning', onWarning);
    await close();
  }
});

test('dictionary: a site with 32 paths gets its dictionary and no warning', { skip }, async () => {
  const previous = process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER;
  process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER = '40';
  let middleware;
  try {
    middleware = compression({ dictionary: true });
  } finally {
    if (previous === undefined) delete process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER;
    else process.env.SSR_NATIVE_DICTIONARY_FEW_PAGES_AFTER = previous;
  }
  const { url, close } = await listen(siteApp(createSite({ seed: 22 }), middleware));
  const warnings = [];
  const onWarning = (warning) => {
    if (warning.code === CODE) warnings.push(warning);
  };
  process.on('warning', onWarning);
  try {
    for (let i = 0; i < 32; i++) await request(`${url}/page/${i}`);
    for (let i = 0; i < 60; i++) await request(`${url}/page/${i % 32}`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 0);
    assert.equal(middleware.dictionary.learner.stats().sampled >= 32, true);
  } finally {
    process.off('warning', onWarning);
    await close();
  }
});

test(
  'ssr-native-dictionary builds a dictionary from a folder of pages; compression serves dcz with it',
  { skip },
  async () => {
    const site = createSite({ seed: 23 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-dictionary-'));
    try {
      // a prerendered browser folder: index.html, page/<n>/index.html, and files that are not pages
      const browser = path.join(dir, 'browser');
      fs.mkdirSync(browser);
      fs.writeFileSync(path.join(browser, 'index.html'), site.page(0));
      for (let n = 1; n < 12; n++) {
        fs.mkdirSync(path.join(browser, 'page', String(n)), { recursive: true });
        fs.writeFileSync(path.join(browser, 'page', String(n), 'index.html'), site.page(n));
      }
      fs.writeFileSync(path.join(browser, 'styles.css'), site.css);
      fs.writeFileSync(path.join(browser, 'main.js'), 'console.log(1)'.repeat(100));

      const run = spawnSync(process.execPath, [BIN, browser], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const file = path.join(dir, 'dictionary.dict'); // the default: beside the browser folder
      assert.match(run.stdout, /from 12 pages/);
      assert.ok(run.stdout.includes(file), run.stdout);
      const dictionary = fs.readFileSync(file);
      assert.ok(dictionary.length > 1024 && dictionary.length <= 128 * 1024, String(dictionary.length));

      const other = path.join(dir, 'small.dict');
      const sized = spawnSync(process.execPath, [BIN, browser, '-o', other, '--max-bytes', '4096'], {
        encoding: 'utf8',
      });
      assert.equal(sized.status, 0, sized.stderr);
      assert.ok(fs.statSync(other).size <= 4096);

      const { url, close } = await listen(siteApp(site, compression({ dictionary: file })));
      try {
        const page = Buffer.from(site.page(40)); // a page rendered later, not one it was built from
        const answer = await request(`${url}/page/40`, {
          headers: { 'accept-encoding': ACCEPT, 'available-dictionary': `:${sha256(dictionary).toString('base64')}:` },
        });
        assert.equal(answer.headers['content-encoding'], 'dcz');
        assert.deepEqual(native.dczDecode(dictionary, sha256(dictionary), answer.body, 1 << 24), page);
        assert.ok(answer.body.length < page.length / 4, `${answer.body.length} of ${page.length}`);
        const plain = await request(`${url}/page/40`, { headers: { 'accept-encoding': ACCEPT } });
        assert.notEqual(plain.headers['content-encoding'], 'dcz');
      } finally {
        await close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('ssr-native-dictionary: usage errors exit 2, a folder with too few pages exits 1', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-dictionary-'));
  try {
    const none = spawnSync(process.execPath, [BIN], { encoding: 'utf8' });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /the browser folder is missing/);
    const missing = spawnSync(process.execPath, [BIN, path.join(dir, 'nowhere')], { encoding: 'utf8' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /is not a folder/);
    const unknown = spawnSync(process.execPath, [BIN, dir, '--levle', '3'], { encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown option --levle/);
    fs.writeFileSync(path.join(dir, 'index.html'), createSite({ seed: 24 }).page(1));
    const one = spawnSync(process.execPath, [BIN, dir, '-o', path.join(dir, 'd.dict')], { encoding: 'utf8' });
    assert.equal(one.status, 1);
    assert.match(one.stderr, /has 1 page\(s\).*a dictionary needs at least 2/);
    assert.equal(fs.existsSync(path.join(dir, 'd.dict')), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
