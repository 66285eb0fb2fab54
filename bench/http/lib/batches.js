'use strict';
// Requests in batches of `size` at once (a burst is the only place that wants all at once).

/** Calls fn(0 .. count-1), `size` at a time; resolves with the results in order. */
async function inBatches(count, size, fn) {
  const out = [];
  for (let i = 0; i < count; i += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, j) => fn(i + j)))));
  return out;
}

module.exports = { inBatches };
