'use strict';
// The body a @hono/node-server Response still holds as given, so etag() can hash it without
// cloning the response into a web stream and reading it back.
//
// Why an internal: neither hono nor @hono/node-server (2.1.9, the newest published) exports a way
// to read a Response's body without consuming it. The public routes are the Fetch API's
// (res.clone() then arrayBuffer(), what hono/etag does with clone().body), which copy the body
// through a ReadableStream. node-server's own Response keeps `[status, body, headers]` under a
// symbol described 'cache' (src/response.ts, `cacheKey`) until something reads it as a stream,
// and its listener writes a string or Uint8Array held there with one res.end.
//
// The guard: the symbol is found by its description, once, and a holder is used only in exactly
// that shape (a number status, then null, a string or a Uint8Array). Anything else, a newer
// node-server that renames or reshapes it, another runtime's Response: `undefined`, and the caller
// takes the public route. stats() says how often each route was taken, so a version that silently
// moved every response to the slow route shows (test/js/etag/hono-etag-held.test.js fails on it).
const CACHE_DESCRIPTION = 'cache';

let cacheSymbol; // node-server's symbol, once seen
const counts = { held: 0, notHeld: 0 };

/** The held body: a string, a Uint8Array, null (no body), or undefined (not held: read a clone). */
function heldBody(res) {
  const symbol = cacheSymbol !== undefined ? cacheSymbol : findCacheSymbol(res);
  const held = symbol === undefined ? undefined : res[symbol];
  if (!Array.isArray(held) || held.length < 2 || typeof held[0] !== 'number') {
    counts.notHeld++;
    return undefined;
  }
  const body = held[1];
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    counts.held++;
    return body;
  }
  counts.notHeld++;
  return undefined;
}

/** heldBody without counting a route (for a caller that only passes the body on). */
function peekHeldBody(res) {
  const symbol = cacheSymbol !== undefined ? cacheSymbol : findCacheSymbol(res);
  const held = symbol === undefined ? undefined : res[symbol];
  if (!Array.isArray(held) || held.length < 2 || typeof held[0] !== 'number') return undefined;
  const body = held[1];
  return body === null || typeof body === 'string' || body instanceof Uint8Array ? body : undefined;
}

function findCacheSymbol(res) {
  const symbols = Object.getOwnPropertySymbols(res);
  for (let i = 0; i < symbols.length; i++) {
    if (symbols[i].description === CACHE_DESCRIPTION) return (cacheSymbol = symbols[i]);
  }
  return undefined;
}

/** How many bodies were read as held, and how many had to be read from a clone. */
function stats() {
  return { held: counts.held, notHeld: counts.notHeld };
}

module.exports = { heldBody, peekHeldBody, stats };
