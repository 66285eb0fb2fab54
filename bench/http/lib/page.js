'use strict';
// A deterministic server-rendered HTML page of about `bytes` bytes: repeated product cards
// with varying text, like the output of an SSR render.
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
  return (head + cards.join('') + tail).slice(0, bytes - tail.length) + tail;
}

module.exports = { renderPage };
