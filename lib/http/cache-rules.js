'use strict';
// The HTTP caching rules a shared cache follows (RFC 9111, RFC 5861), each a small named function
// with the section it implements. Header maps are Node's: lower-case names, values a string, a
// number or an array of strings. Where a rule leaves room, these functions choose not to store.

// RFC 9111 5.2: Cache-Control is a list of directives, `name` or `name=value` (token or quoted
// string), names case-insensitive. A directive given twice keeps its first value; its presence is
// what counts for the directives without arguments.
function parseCacheControl(value) {
  const directives = new Map();
  if (value === undefined || value === null) return directives;
  const text = Array.isArray(value) ? value.join(',') : String(value);
  if (text.length > 4096) {
    // hostile length: treat as unparseable, which the callers read as "do not store"
    directives.set('no-store', '');
    return directives;
  }
  for (const part of splitList(text)) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!name) continue;
    let arg = eq === -1 ? '' : part.slice(eq + 1).trim();
    if (arg.length >= 2 && arg[0] === '"' && arg[arg.length - 1] === '"') arg = arg.slice(1, -1);
    if (!directives.has(name)) directives.set(name, arg);
  }
  return directives;
}

// Comma-separated list items, commas inside quoted strings kept (`no-cache="a, b"`).
function splitList(text) {
  const items = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) quoted = !quoted;
    else if (c === 44 /* , */ && !quoted) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  items.push(text.slice(start));
  return items;
}

// RFC 9111 1.2.2: delta-seconds is a non-negative integer; anything else is invalid (and an
// invalid max-age means "stale", 4.2.1, so it never makes a response fresh here).
function deltaSeconds(arg) {
  if (typeof arg !== 'string' || !/^[0-9]{1,10}$/.test(arg)) return undefined;
  return Math.min(Number(arg), 2147483648);
}

function headerText(value) {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

// RFC 9111 3 and 9110 9.2.1: a shared cache here stores responses to GET (HEAD is answered from
// the GET entry, and a HEAD miss is filled with a GET, as nginx's proxy_cache_convert_head).
function isCacheableMethod(method) {
  return method === 'GET' || method === 'HEAD';
}

// RFC 9111 4.4: a non-error response to an unsafe method invalidates the target URI's entries.
function invalidatesTarget(method, status) {
  return !isCacheableMethod(method) && method !== 'OPTIONS' && method !== 'TRACE' && status >= 200 && status < 400;
}

// RFC 9110 15.1 (heuristically cacheable statuses), less 206 (no range support here): the
// statuses stored when the response gives explicit freshness. Others pass through.
const DEFAULT_STATUSES = new Set([200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]);

// RFC 9111 3.5: a request with Authorization is answered by the origin; its response may be
// stored for others only if it says a shared cache may: public, s-maxage or must-revalidate.
function authorizedResponseIsShareable(cc) {
  return cc.has('public') || cc.has('s-maxage') || cc.has('must-revalidate');
}

// RFC 9111 3 (storing responses), for a shared cache, with the conservative choices of this
// cache. Returns undefined when the response may be stored, else the reason it may not.
function whyNotStorable(status, headers, cc, { statuses, authorized }) {
  if (!statuses.has(status)) return 'status';
  if (cc.has('no-store')) return 'no-store'; // 5.2.2.5
  if (cc.has('private')) return 'private'; // 5.2.2.7 (the qualified form too: when in doubt, do not store)
  if (cc.has('no-cache')) return 'no-cache'; // 5.2.2.4: needs revalidation on every use, which this cache does not do
  if (headers['set-cookie'] !== undefined) return 'set-cookie'; // RFC 6265 8.5 / 9111 7.3: one user's cookie
  const vary = headerText(headers.vary);
  if (vary !== undefined && vary.split(',').some((name) => name.trim() === '*')) return 'vary-star'; // 4.1
  if (authorized && !authorizedResponseIsShareable(cc)) return 'authorization'; // 3.5
  if (headers['content-range'] !== undefined) return 'partial'; // 3.3: partial content is not stored here
  return undefined;
}

// RFC 9111 4.2.1: the freshness lifetime in seconds for a shared cache: s-maxage, then max-age,
// then Expires minus Date. Undefined when the response gives none (heuristic freshness, 4.2.2,
// is not used: a page without an explicit lifetime is not stored unless the option defaultTtl
// says so).
function freshnessLifetime(headers, cc) {
  if (cc.has('s-maxage')) {
    const s = deltaSeconds(cc.get('s-maxage'));
    return s === undefined ? 0 : s;
  }
  if (cc.has('max-age')) {
    const s = deltaSeconds(cc.get('max-age'));
    return s === undefined ? 0 : s;
  }
  const expires = headerText(headers.expires);
  if (expires !== undefined) {
    const expiresAt = Date.parse(expires);
    if (Number.isNaN(expiresAt)) return 0; // 5.3: an invalid Expires means already expired
    const dateText = headerText(headers.date);
    const date = dateText === undefined ? NaN : Date.parse(dateText);
    return Math.max(0, Math.floor((expiresAt - (Number.isNaN(date) ? Date.now() : date)) / 1000));
  }
  return undefined;
}

// RFC 9111 4.2.3: the Age a response had when it reached the cache (its own Age header), added to
// the time it then spends stored.
function initialAge(headers) {
  const age = deltaSeconds(headerText(headers.age));
  return age === undefined ? 0 : age;
}

// RFC 5861 3 and 4: how long past its freshness a response may be served stale while it is
// refreshed in the background, and while its origin fails. RFC 9111 5.2.2.2 / 5.2.2.8:
// must-revalidate and proxy-revalidate forbid serving it stale at all.
function staleWindows(cc) {
  if (cc.has('must-revalidate') || cc.has('proxy-revalidate')) return { whileRevalidate: 0, ifError: 0 };
  return {
    whileRevalidate: deltaSeconds(cc.get('stale-while-revalidate')) || 0,
    ifError: deltaSeconds(cc.get('stale-if-error')) || 0,
  };
}

// RFC 9111 4.1: the request headers a response varies on, lower-case, sorted and deduplicated.
function varyNames(headers) {
  const vary = headerText(headers.vary);
  if (vary === undefined) return [];
  const names = new Set();
  for (const item of vary.split(',')) {
    const name = item.trim().toLowerCase();
    if (name) names.add(name);
  }
  return [...names].sort();
}

// RFC 5861 4: the origin failures a stale-if-error copy stands in for.
function isServerError(status) {
  return status >= 500 && status <= 599;
}

// RFC 9111 5.2.1.4: request no-cache asks the cache to revalidate; like nginx, this cache ignores
// it unless told to honour it (a client could otherwise make every request a render).
function requestAsksRevalidation(requestHeaders) {
  const cc = requestHeaders['cache-control'];
  if (cc !== undefined) {
    const d = parseCacheControl(cc);
    if (d.has('no-cache') || (d.has('max-age') && deltaSeconds(d.get('max-age')) === 0)) return true;
  }
  return requestHeaders.pragma !== undefined && /no-cache/i.test(headerText(requestHeaders.pragma));
}

module.exports = {
  DEFAULT_STATUSES,
  parseCacheControl,
  deltaSeconds,
  headerText,
  isCacheableMethod,
  invalidatesTarget,
  authorizedResponseIsShareable,
  whyNotStorable,
  freshnessLifetime,
  initialAge,
  staleWindows,
  varyNames,
  isServerError,
  requestAsksRevalidation,
};
