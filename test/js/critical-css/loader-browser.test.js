'use strict';
// The deferred stylesheet's loaders in a real browser (Debian's chromium, headless, over the
// DevTools protocol): once the page has loaded, the link inlined for Angular 22.2 (beasties 0.5,
// preload 'media-script') has media="all" again: without a policy, under a nonce policy
// (ngCspNonce), and under the hash policy autoCsp writes once the prerender command has added the
// loader's hash. The same page without that hash is the control: the browser refuses the script
// and the stylesheet stays media="print" (its rules off screen). Angular 21's onload loader beside.
// Skipped with the reason only where chromium is missing or cannot start.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { inlineCriticalCss } = require('../../../lib/express/critical-css');
const { angularBuildTime } = require('../../../lib/critical-css/prerender');
const { launch } = require('../helpers/chromium');

const CSS = '.a{color:rgb(255, 0, 0)}.late{color:rgb(0, 0, 255)}';
const AUTO_CSP =
  `<meta http-equiv="Content-Security-Policy" content="script-src 'strict-dynamic' ` +
  `'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' https: 'unsafe-inline';object-src 'none';base-uri 'self';">`;

function page(head, body = '') {
  return (
    `<!doctype html><html><head>${head}<link rel="stylesheet" href="styles.css"></head>` +
    `<body><p class="a">x</p>${body}</body></html>`
  );
}

test('the deferred stylesheet applies in chromium under each loader and policy', { timeout: 120000 }, async (t) => {
  const launched = await launch();
  if (launched.skip) return t.skip(launched.skip);
  const { page: tab } = launched.browser;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loader-browser-'));
  fs.writeFileSync(path.join(dir, 'styles.css'), CSS);
  // .late is added after inlining: its rule is not critical, only the full sheet colours it
  const inline = (html, beasties) =>
    inlineCriticalCss(html, { browserDistFolder: dir, beasties }).replace(
      '<p class="a">x</p>',
      '<p class="a">x</p><p class="late" id="late">y</p>',
    );
  const pages = {
    // Angular 22.2's loader
    'script.html': { html: inline(page(''), '0.5'), media: 'all' },
    'nonce.html': {
      html: inline(page('', '<app-root ngCspNonce="n0nce"></app-root>'), '0.5'),
      csp: "script-src 'nonce-n0nce'",
      media: 'all',
    },
    'auto-csp.html': { html: angularBuildTime(inline(page(AUTO_CSP), '0.5'), true), media: 'all' },
    'auto-csp-unhashed.html': { html: angularBuildTime(inline(page(AUTO_CSP), '0.5'), false), media: 'print' },
    // Angular 21's loader
    'onload.html': { html: inline(page(''), '0.4'), media: 'all' },
  };
  const server = http.createServer((req, res) => {
    const name = req.url.slice(1);
    if (name === 'styles.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(CSS);
    const entry = pages[name];
    if (!entry) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html', ...(entry.csp ? { 'content-security-policy': entry.csp } : {}) });
    res.end(entry.html);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  try {
    for (const [name, entry] of Object.entries(pages)) {
      await tab.navigate(`${origin}/${name}`);
      // the sheet's own load event fires before the window's: the loader has run by now
      let media = '';
      for (let i = 0; i < 50; i++) {
        media = await tab.evaluate(`document.querySelector('link[rel=stylesheet]').media`);
        if (media === entry.media) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(media, entry.media, `${name}: the stylesheet's media once loaded\n${entry.html}`);
      const late = await tab.evaluate(`getComputedStyle(document.getElementById('late')).color`);
      assert.equal(late === 'rgb(0, 0, 255)', entry.media === 'all', `${name}: the full sheet applied: ${late}`);
    }
  } finally {
    server.close();
    await launched.browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
