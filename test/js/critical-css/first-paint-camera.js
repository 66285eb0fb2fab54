'use strict';
// A camera for first paint: Debian's chromium, headless, over the DevTools protocol
// (../helpers/chromium.js), screenshotting pages served from a local node:http server next to
// their stylesheet, /styles.css, at 1024x768, deviceScaleFactor 1. With `holdStylesheet` the
// stylesheet request is failed (DevTools Fetch domain), so only the inlined critical CSS applies
// (phase 1); without, it loads (phase 2). Every request for another origin is failed too (no web
// fonts or CDNs from the network); fonts the stylesheets name by url() resolve to the local
// server, which answers 404. Before each screenshot: document.fonts.ready, CSS transitions
// finished and infinite animations held at their start (a stylesheet applied late starts
// transitions the normal page never runs), two animation frames, with every page's animation
// timeline standing still. Used by first-paint.test.js, scripts/appengine-first-paint.js and
// scripts/paint-check.js (which sets its own viewport and takes full-page shots).
const http = require('node:http');
const { launch } = require('../helpers/chromium');

const VIEWPORT = { width: 1024, height: 768, deviceScaleFactor: 1, mobile: false };
// A full-page shot stops at this many CSS pixels down (far beyond any corpus page).
const FULL_PAGE_MAX_HEIGHT = 16384;

// Settles the page: fonts, the layout tree built again, transitions run to their end, infinite
// animations at their start. The rebuild (display: none on <html> and back, focus kept) makes a
// page whose stylesheet arrived after its elements were first styled paint as one whose
// stylesheet came first: Chromium keeps a <select>'s inner text where its default appearance put
// it when the sheet sets appearance: none late, so a linked sheet and the same rules inlined
// painted 1 px apart on some shots only. Twice: a transition that a late style change starts in
// the first frames is finished too.
const SETTLE = `(async () => {
  await document.fonts.ready;
  const root = document.documentElement;
  const focused = document.activeElement;
  const style = root.getAttribute('style');
  root.style.display = 'none';
  root.getBoundingClientRect();
  if (style === null) root.removeAttribute('style');
  else root.setAttribute('style', style);
  root.getBoundingClientRect();
  if (focused && focused !== document.body && focused !== document.activeElement) focused.focus({ preventScroll: true });
  for (let pass = 0; pass < 2; pass++) {
    for (const animation of document.getAnimations()) {
      if (animation.effect.getComputedTiming().endTime === Infinity) {
        animation.pause();
        animation.currentTime = 0;
      } else animation.finish();
    }
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }
  return true;
})()`;

// How many stylesheets from /styles.css apply: their media matches (a deferred one still at
// media=print does not) and they hold rules (one that failed to load holds none, or throws).
const APPLIED = `[...document.styleSheets].filter((sheet) => {
  if (!sheet.href || new URL(sheet.href).pathname !== '/styles.css') return false;
  if (sheet.media.mediaText && !matchMedia(sheet.media.mediaText).matches) return false;
  try {
    return sheet.cssRules.length > 0;
  } catch {
    return false;
  }
}).length`;

function serve() {
  const state = { pages: {}, css: '' };
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    res.setHeader('Cache-Control', 'no-store');
    if (pathname.endsWith('.html') && state.pages[pathname.slice(1, -5)] !== undefined) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(state.pages[pathname.slice(1, -5)]);
    } else if (pathname === '/x.css') {
      // edge-cases.css has @import url("x.css"): a failed @import fires the link's error event,
      // not load, so a deferred link's onload never sets media=all (docs/critical-css-differences.md)
      res.writeHead(200, { 'Content-Type': 'text/css; charset=utf-8' });
      res.end('');
    } else if (pathname === '/styles.css') {
      res.writeHead(200, { 'Content-Type': 'text/css; charset=utf-8' });
      res.end(state.css);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, state })));
}

/**
 * { camera } or { skip: reason } where chromium is missing or cannot start. camera.show(pages, css)
 * serves pages ({ name: html }, at /name.html) and css (at /styles.css); camera.holdStylesheet
 * (default true) fails the stylesheet request; camera.shot(name, { fullPage }) resolves to
 * { png, applied }: the screenshot (of the viewport, or with fullPage of the whole document, at
 * least the viewport) and how many stylesheets from /styles.css applied before settling (see
 * APPLIED); camera.setViewport({ width, height }) changes the viewport (deviceScaleFactor 1, not
 * mobile); camera.version() resolves to chromium's version; camera.close() stops the server and
 * the browser.
 */
async function openCamera() {
  const launched = await launch(['--hide-scrollbars', '--force-color-profile=srgb']);
  if (launched.skip) return { skip: launched.skip };
  const { page } = launched.browser;
  const { server, state } = await serve();
  const origin = `http://localhost:${server.address().port}`;
  let viewport = VIEWPORT;
  const camera = {
    holdStylesheet: true,
    show(pages, css) {
      state.pages = pages;
      state.css = css;
    },
    async shot(name, { fullPage = false } = {}) {
      await page.navigate(`${origin}/${name}.html`);
      const applied = await page.evaluate(APPLIED);
      const { exceptionDetails } = await page.send('Runtime.evaluate', { expression: SETTLE, awaitPromise: true });
      if (exceptionDetails) throw new Error(`settling ${name}: ${exceptionDetails.text}`);
      let params = { format: 'png' };
      if (fullPage) {
        const { cssContentSize } = await page.send('Page.getLayoutMetrics');
        const width = Math.max(viewport.width, Math.ceil(cssContentSize.width));
        const height = Math.min(FULL_PAGE_MAX_HEIGHT, Math.max(viewport.height, Math.ceil(cssContentSize.height)));
        params = { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale: 1 } };
      }
      const { data } = await page.send('Page.captureScreenshot', params);
      return { png: Buffer.from(data, 'base64'), applied };
    },
    async setViewport({ width, height }) {
      viewport = { width, height, deviceScaleFactor: 1, mobile: false };
      await page.send('Emulation.setDeviceMetricsOverride', viewport);
    },
    /** chromium's product string, as Browser.getVersion reports it. */
    async version() {
      return (await page.send('Browser.getVersion')).product;
    },
    async close() {
      offPaused();
      server.close();
      await launched.browser.close();
    },
  };
  const offPaused = page.on('Fetch.requestPaused', ({ requestId, request }) => {
    const url = new URL(request.url);
    const blocked = url.origin !== origin || (camera.holdStylesheet && url.pathname === '/styles.css');
    page
      .send(blocked ? 'Fetch.failRequest' : 'Fetch.continueRequest', {
        requestId,
        ...(blocked ? { errorReason: 'BlockedByClient' } : {}),
      })
      .catch(() => {});
  });
  try {
    await page.send('Emulation.setDeviceMetricsOverride', VIEWPORT);
    await page.send('Network.setCacheDisabled', { cacheDisabled: true });
    // every page's animation timeline stands still: no frame of a running animation in a shot
    await page.send('Animation.enable');
    await page.send('Animation.setPlaybackRate', { playbackRate: 0 });
    await page.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] });
  } catch (err) {
    await camera.close();
    throw err;
  }
  return { camera };
}

module.exports = { openCamera, VIEWPORT };
