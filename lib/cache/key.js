'use strict';
// Cache keys. A key has two parts:
// - the primary key (RFC 9111 2: the target URI): path, then the query as the options say
//   ('keep' as sent, 'sort' the parameters by name, 'ignore' it all; `ignoreParams` drops named
//   ones such as utm_source); with the Host when `host` is on (the default: one server, several
//   sites), as sent: `VICTIM.example` and `victim.example` are two entries, as the app may answer
//   them differently (a canonical redirect); then what else the engine adds (forwarding headers a trusted proxy set, the `key`
//   hook's value), each after a \n;
// - the secondary key (RFC 9111 4.1): the values of the request headers the stored response
//   named in Vary, appended so that each variant is its own entry.
// The separators are characters a request line and a header value cannot carry (\n, \0), so no
// two requests build one key by accident.

function keyBuilder({ query = 'keep', ignoreParams = [], host = true } = {}) {
  const ignored = new Set(ignoreParams.map((p) => String(p)));
  const filterParams = ignored.size > 0;

  function queryPart(search) {
    if (query === 'ignore' || search === '') return '';
    if (query === 'keep' && !filterParams) return search;
    const params = [];
    for (const pair of search.slice(1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      if (filterParams && ignored.has(safeDecode(name))) continue;
      params.push({ name, pair });
    }
    // By name only, and stable (Array.prototype.sort is): `?lang=fr&lang=en` and
    // `?lang=en&lang=fr` are different requests to an app that reads the first or all values.
    if (query === 'sort') params.sort(byName);
    return params.length ? `?${params.map((p) => p.pair).join('&')}` : '';
  }

  /** The primary key of a request target (`/path?query`, as in the request line). */
  function primary(url, hostHeader) {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const search = q === -1 ? '' : url.slice(q);
    const target = path + queryPart(search);
    return host ? `${target}\n${hostHeader === undefined ? '' : String(hostHeader)}` : target;
  }

  /**
   * The values of the ignored parameters in `url` (as sent and decoded), the ones long enough to
   * carry markup: a page that shows one must not be stored under the URL without it.
   */
  function ignoredValues(url) {
    const values = [];
    if (!filterParams) return values;
    const q = url.indexOf('?');
    if (q === -1) return values;
    for (const pair of url.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=');
      if (eq === -1 || !ignored.has(safeDecode(pair.slice(0, eq)))) continue;
      const raw = pair.slice(eq + 1);
      const decoded = safeDecode(raw);
      if (raw.length >= MIN_REFLECTED) values.push(raw);
      if (decoded !== raw && decoded.length >= MIN_REFLECTED) values.push(decoded);
    }
    return values;
  }

  return { primary, ignoredValues, hostInKey: host };
}

// Shorter values cannot carry a script or markup of their own; checking them would keep common
// pages ("?utm_source=ads" on a page that says "ads") out of the cache for nothing.
const MIN_REFLECTED = 4;

function byName(a, b) {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The host part of a request's key. HTTP/2 names the site in the `:authority` pseudo-header
 * (RFC 9113 8.3.1) and a client need not send Host at all: keyed on Host alone, every site of an
 * HTTP/2 server would share one entry per path. A request may carry both, naming two sites (RFC
 * 9113 calls it malformed, node does not refuse it, and an app may route on either): then both
 * are in the key, so its answer is only ever replayed to a request naming the same two.
 */
function hostOf(headers) {
  const authority = headers[':authority'];
  const host = headers.host;
  if (authority === undefined) return host;
  if (host === undefined || host === authority) return authority;
  return `${authority}\0${host}`;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The full key: the primary key and the varied request headers' values. */
function variantKey(primary, varyNames, requestHeaders) {
  if (varyNames.length === 0) return primary;
  let key = primary;
  for (const name of varyNames) {
    const value = requestHeaders[name];
    key += `\0${value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value)}`;
  }
  return key;
}

/** The path part of a primary key (what purge(url) and purgePrefix(prefix) match). */
function targetOf(primary) {
  const nl = primary.indexOf('\n');
  return nl === -1 ? primary : primary.slice(0, nl);
}

module.exports = { hostOf, keyBuilder, variantKey, targetOf };
