'use strict';
// A site of server-rendered pages sharing a layout: ~20 KB of inlined critical CSS (the start of
// Bootstrap 5's own stylesheet, cut at a rule's end, as Angular's critical-CSS step inlines it),
// a navbar, a footer and script tags, around seeded varied content (headings, paragraphs, product
// cards). page(n) is the same bytes for the same seed and n. Used by the dictionary tests, the
// browser test and bench/http/scenarios/compression-dictionary.js.
const fs = require('node:fs');
const { mulberry32 } = require('./seeded-random');

const CSS_BYTES = 20 * 1024;

function criticalCss() {
  const full = fs.readFileSync(require.resolve('bootstrap/dist/css/bootstrap.min.css'), 'utf8');
  const body = full.replace(/^\/\*![\s\S]*?\*\//, ''); // the licence banner is not critical CSS
  return body.slice(0, body.lastIndexOf('}', CSS_BYTES) + 1);
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et ' +
  'dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea ' +
  'commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur ' +
  'excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum ' +
  'shipping garden kitchen travel camera laptop bicycle coffee table lamp chair jacket boots tent river'
).split(' ');

function createSite({ seed = 1, css = criticalCss(), title = 'Shop' } = {}) {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<link rel="icon" href="/favicon.ico"><style>${css}</style>`;
  const nav =
    '<nav class="navbar navbar-expand-lg navbar-dark bg-dark"><div class="container-fluid">' +
    `<a class="navbar-brand" href="/">${title}</a><button class="navbar-toggler" type="button" ` +
    'data-bs-toggle="collapse" data-bs-target="#nav" aria-controls="nav" aria-expanded="false" ' +
    'aria-label="Toggle navigation"><span class="navbar-toggler-icon"></span></button>' +
    '<div class="collapse navbar-collapse" id="nav"><ul class="navbar-nav me-auto mb-2 mb-lg-0">' +
    ['Home', 'Products', 'Deals', 'Stores', 'Help', 'Account']
      .map((name) => `<li class="nav-item"><a class="nav-link" href="/${name.toLowerCase()}">${name}</a></li>`)
      .join('') +
    '</ul><form class="d-flex" role="search"><input class="form-control me-2" type="search" ' +
    'placeholder="Search" aria-label="Search"><button class="btn btn-outline-success" type="submit">' +
    'Search</button></form></div></div></nav>';
  const footer =
    '<footer class="py-3 my-4"><ul class="nav justify-content-center border-bottom pb-3 mb-3">' +
    ['Home', 'Features', 'Pricing', 'FAQs', 'About']
      .map(
        (name) =>
          `<li class="nav-item"><a href="/${name.toLowerCase()}" class="nav-link px-2 text-body-secondary">${name}</a></li>`,
      )
      .join('') +
    `</ul><p class="text-center text-body-secondary">&copy; 2026 ${title}, Inc</p></footer>` +
    '<script src="/runtime-3f2a9c.js" type="module"></script><script src="/main-81bd0e.js" type="module"></script>';

  function words(random, count) {
    const out = [];
    for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
    return out.join(' ');
  }

  /** The HTML of page `n`, with `extra` (e.g. a user's name) in its content. */
  function page(n, extra = '') {
    const random = mulberry32(seed * 7919 + n);
    let main = `<main class="container"><h1 id="title">Page ${n}: ${words(random, 4)}</h1>${extra}`;
    const sections = 3 + Math.floor(random() * 3);
    for (let s = 0; s < sections; s++) {
      main += `<h2>${words(random, 3)}</h2><p class="lead">${words(random, 40 + Math.floor(random() * 40))}</p>`;
    }
    main += '<div class="row">';
    const cards = 4 + Math.floor(random() * 5);
    for (let c = 0; c < cards; c++) {
      const price = (5 + random() * 200).toFixed(2);
      main +=
        '<div class="col-md-3"><div class="card mb-4 shadow-sm"><div class="card-body">' +
        `<h5 class="card-title">${words(random, 2)}</h5><p class="card-text">${words(random, 12)}</p>` +
        `<a href="/p/${Math.floor(random() * 1e6)}" class="btn btn-primary">$${price}</a></div></div></div>`;
    }
    main += '</div></main>';
    return `${head}<title>${title}: page ${n}</title></head><body>${nav}${main}${footer}</body></html>`;
  }

  return { page, css };
}

module.exports = { createSite, criticalCss };
