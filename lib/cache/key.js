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
   * `url` as the app sees it on a fill: without the ignored parameters (with query 'ignore',
   * without the query), the others as sent and in order; `url` itself when nothing is taken out.
   * The key does not hold them, so the page rendered for it must not depend on them.
   */
  function strip(url) {
    if (query !== 'ignore' && !filterParams) return url;
    const q = url.indexOf('?');
    if (q === -1) return url;
    if (query === 'ignore') return url.slice(0, q);
    const kept = [];
    let dropped = false;
    for (const pair of url.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=');
      if (ignored.has(safeDecode(eq === -1 ? pair : pair.slice(0, eq)))) dropped = true;
      else kept.push(pair);
    }
    if (!dropped) return url;
    return kept.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${kept.join('&')}`;
  }

  return { primary, strip, strips: query === 'ignore' || filterParams, hostInKey: host };
}

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
