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

const { parseAuthority } = require('../http/authority');
const { invalidValue } = require('../validate');
const { ClearingMap } = require('../bounded/clearing-map');

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
 * ('*.shop.example', not the name itself), or '*' for any; here also with a port
 * ('shop.example:8443', '*.shop.example:8443'), then only that port. Names compare
 * case-insensitively and without a trailing dot; the value must be an authority
 * (lib/http/authority.js) to match at all. An entry naming no port matches any port when
 * `anyPort` (the Host is in the key, so a port an attacker picks gets an entry of its own), else
 * only a Host naming no port: with the Host out of the key, `victim.example:4000` would be stored
 * for everyone (a page building URLs from the Host), whatever port the server listens on (behind
 * a proxy that passes the client's Host on, the client picks it). No entry matches a Host whose
 * port it does not spell.
 * Returns allowed(value) (with a small memo: a site sees few distinct Host values, an attacker
 * many, so the memo is cleared when full).
 */
function hostAllowList(patterns, { anyPort = true } = {}) {
  const exact = new Map(); // name -> Set of ports ('' for an entry naming none)
  const suffixes = []; // { suffix: '.shop.example', port: '' | '8443' }
  let any = false;
  for (const raw of patterns) {
    const pattern = String(raw).trim();
    if (pattern === '*') any = true;
    else if (pattern !== '') {
      const wildcard = pattern.startsWith('*.');
      const parsed = parseAuthority(wildcard ? pattern.slice(2) : pattern);
      if (parsed === undefined) throw invalidValue('options.allowedHosts', 'host[:port] patterns', pattern);
      const name = hostName(parsed.host);
      const port = portOf(parsed);
      if (wildcard) suffixes.push({ suffix: `.${name}`, port });
      else {
        if (!exact.has(name)) exact.set(name, new Set());
        exact.get(name).add(port);
      }
    }
  }
  // whether an entry naming `entryPort` ('' for none) matches a Host naming `port`
  const portMatches = (entryPort, port) => entryPort === port || (anyPort && entryPort === '');
  function check(text) {
    const parsed = parseAuthority(text);
    if (parsed === undefined) return false;
    if (any) return true;
    const name = hostName(parsed.host);
    const port = portOf(parsed);
    const ports = exact.get(name);
    if (ports !== undefined) for (const entryPort of ports) if (portMatches(entryPort, port)) return true;
    for (const { suffix, port: entryPort } of suffixes)
      if (name.length > suffix.length && name.endsWith(suffix) && portMatches(entryPort, port)) return true;
    return false;
  }
  const memo = new ClearingMap(1024);
  return function allowed(host) {
    if (host === undefined) return any;
    const text = Array.isArray(host) ? host.join(', ') : String(host);
    let yes = memo.get(text);
    if (yes === undefined) {
      yes = check(text);
      memo.set(text, yes);
    }
    return yes;
  };
}

// A parsed authority's port as allowedHosts compares it: '' for none, else without leading zeros.
function portOf(parsed) {
  return parsed.port === undefined ? '' : String(Number(parsed.port));
}

// A host as allowedHosts compares it: lower-case, without a trailing dot.
function hostName(host) {
  const name = host.toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
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
