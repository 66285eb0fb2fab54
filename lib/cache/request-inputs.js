'use strict';
// The request inputs a page may depend on besides its target, Host and Vary'd headers, as the
// web-cache-poisoning research lists them, and what the cache does with each:
// - forwarding headers: a framework honours them when its trust setting covers the peer
//   (Express `trust proxy`, Koa `app.proxy`), and some apps read them directly (Angular's
//   AppEngine reads X-Forwarded-Host / -Proto): they are either part of the key or the request
//   passes (option `forwarded`);
// - rewrite headers: an app that honours them renders another target or method than the one
//   the cache keys, so a request carrying one always passes;
// - the Host, checked against `allowedHosts` (as Angular's security.allowedHosts).

const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-scheme',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-host',
];

const REWRITE_HEADERS = [
  'x-original-url',
  'x-rewrite-url',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
];

// Request headers that make an answer about this one request (a range, a precondition): such an
// answer says nothing about the other requests for the variant, so it never starts hit-for-pass.
// (If-None-Match and If-Modified-Since are not among them: a fill's render never sees them.)
const REQUEST_SPECIFIC = ['range', 'if-range', 'if-match', 'if-unmodified-since'];

function hasAny(headers, names) {
  for (let i = 0; i < names.length; i++) if (headers[names[i]] !== undefined) return true;
  return false;
}

/**
 * The forwarding headers of a request as a key part (`\n` name=value ...), '' when it carries
 * none. The caller has decided they may be keyed.
 */
function forwardingPart(headers) {
  let part = '';
  for (let i = 0; i < FORWARDING_HEADERS.length; i++) {
    const value = headers[FORWARDING_HEADERS[i]];
    if (value !== undefined) part += `\n${FORWARDING_HEADERS[i]}=${Array.isArray(value) ? value.join(', ') : value}`;
  }
  return part;
}

/**
 * allowedHosts as Angular reads it: a host name ('shop.example'), a wildcard for its subdomains
 * ('*.shop.example', not the name itself), or '*' for any. Ports are not compared. Returns
 * allowed(hostHeader) (with a small memo: a site sees few distinct Host values, an attacker many,
 * so the memo is cleared when full).
 */
function hostAllowList(patterns) {
  const exact = new Set();
  const suffixes = [];
  let any = false;
  for (const raw of patterns) {
    const pattern = String(raw).trim().toLowerCase();
    if (pattern === '*') any = true;
    else if (pattern.startsWith('*.')) suffixes.push(pattern.slice(1));
    else if (pattern !== '') exact.add(pattern);
  }
  const memo = new Map();
  function check(host) {
    if (any) return true;
    const name = hostName(host);
    if (name === '') return false;
    if (exact.has(name)) return true;
    for (const suffix of suffixes) if (name.length > suffix.length && name.endsWith(suffix)) return true;
    return false;
  }
  return function allowed(host) {
    if (host === undefined) return any;
    const text = Array.isArray(host) ? host[0] : String(host);
    let yes = memo.get(text);
    if (yes === undefined) {
      yes = check(text);
      if (memo.size >= 1024) memo.clear();
      memo.set(text, yes);
    }
    return yes;
  };
}

// The name of a Host value (or the first of a forwarded list), without port, lower-case.
function hostName(value) {
  let host = value.split(',')[0].trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? '' : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** The hosts a request names besides Host when its forwarding headers are keyed. */
function forwardedHosts(headers) {
  const hosts = [];
  for (const name of ['x-forwarded-host', 'x-host']) if (headers[name] !== undefined) hosts.push(headers[name]);
  const forwarded = headers.forwarded;
  if (forwarded !== undefined) {
    const text = Array.isArray(forwarded) ? forwarded.join(',') : String(forwarded);
    for (const m of text.matchAll(/(?:^|[;,\s])host\s*=\s*"?([^;,"\s]*)/gi)) hosts.push(m[1]);
  }
  return hosts;
}

module.exports = {
  FORWARDING_HEADERS,
  REWRITE_HEADERS,
  REQUEST_SPECIFIC,
  hasAny,
  forwardingPart,
  hostAllowList,
  forwardedHosts,
};
