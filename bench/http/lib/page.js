'use strict';
// A deterministic server-rendered HTML page of about `bytes` bytes: repeated product cards
// with varying text, like the output of an SSR render.
//
// The page is returned as a flat (sequential) string. Built by concatenation it would be a V8
// cons string, and a server holding one for its whole life sees it change representation at a
// moment set by the garbage collector (flattened in place, then short-cut to the flat copy by a
// later full collection): until then Buffer.byteLength and V8's fast API calls take their slow
// path (a scalar scan instead of SIMD), so two servers answering the same page could differ by
// several microseconds per request depending on when their heaps happened to be collected.
function renderPage(bytes = 75 * 1024) {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Catalogue</title>' +
    '<link rel="stylesheet" href="/styles.css"></head><body><main class="grid">';
  const tail = '</main><script src="/main.js" type="module"></script></body></html>';
  const cards = [];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const card =
      `<article class="card" data-id="${i}"><h2>Product ${i}</h2>` +
      `<p>Item ${(i * 7919) % 10007} in aisle ${i % 37}, price ${((i * 31) % 997) / 10} EUR.</p>` +
      `<a href="/products/${i}">Details</a></article>`;
    cards.push(card);
    size += card.length;
  }
  const page = (head + cards.join('') + tail).slice(0, bytes - tail.length) + tail;
  // decoding fresh bytes gives a sequential string (one byte per character for this ASCII page)
  return Buffer.from(page, 'utf8').toString('utf8');
}

module.exports = { renderPage };
