'use strict';
// A request's authority (Host, HTTP/2 :authority, X-Forwarded-Host) read as RFC 3986 3.2
// `host [ ":" port ]`, the one reading every shared component uses: a value is either this
// grammar, whole, or nothing. Splitting at the first ':' instead reads
// `victim.example:1@evil.example` as victim.example, while a browser, and an app building a URL
// from the value, sees evil.example.
//
// Narrower than RFC 3986 where HTTP never needs the rest, so that what passes is plain:
// - no userinfo (RFC 9110 4.2.4 forbids it in http(s) URIs; in a Host it is an attack);
// - reg-name limited to unreserved characters (letters, digits, - . _ ~): no sub-delims (a
//   comma is how a forwarded list reads, `;` `=` how Forwarded does) and no %-encoding;
//   not empty (RFC 9110 4.2.1: an http URI has a host);
// - IP-literal: an IPv6 address only (no IPvFuture, no zone id);
// - port: 1 to 5 digits, 0-65535. The empty port RFC 3986 allows (`host:`) is refused: no client
//   sends it, and an app concatenating it builds URLs in a spelling no other request uses.
// The host is returned as sent (no case folding): the cache keys what the app sees.

const REG_NAME_WITH_PORT = /^[A-Za-z0-9\-._~]+(?::[0-9]{1,5})?$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const DEC_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;

/**
 * `{ host, port }` of an authority value (port a string, or undefined when none is named), or
 * undefined when the value is not `host [":" port]` as above. Not a string: undefined.
 */
function parseAuthority(value) {
  if (typeof value !== 'string') return undefined;
  if (value.charCodeAt(0) === 0x5b /* [ */) {
    const end = value.indexOf(']');
    if (end === -1 || !isIPv6(value.slice(1, end))) return undefined;
    const rest = value.slice(end + 1);
    if (rest === '') return { host: value, port: undefined };
    if (rest.charCodeAt(0) !== 0x3a /* : */ || !isPort(rest.slice(1))) return undefined;
    return { host: value.slice(0, end + 1), port: rest.slice(1) };
  }
  if (!REG_NAME_WITH_PORT.test(value)) return undefined;
  const colon = value.indexOf(':');
  if (colon === -1) return { host: value, port: undefined };
  const port = value.slice(colon + 1);
  if (!isPort(port)) return undefined;
  return { host: value.slice(0, colon), port };
}

// unreserved characters (RFC 3986 2.3): ALPHA DIGIT - . _ ~
const UNRESERVED = new Uint8Array(128);
for (let c = 0; c < 128; c++) UNRESERVED[c] = /[A-Za-z0-9\-._~]/.test(String.fromCharCode(c)) ? 1 : 0;

/**
 * Whether parseAuthority(value) would return an authority, without building it: one pass over
 * the characters for a host name or IPv4 address (every request's Host is checked).
 */
function isAuthority(value) {
  if (typeof value !== 'string') return false;
  const n = value.length;
  if (n === 0) return false;
  if (value.charCodeAt(0) === 0x5b /* [ */) return parseAuthority(value) !== undefined;
  let i = 0;
  for (; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x3a /* : */) break;
    if (c >= 128 || UNRESERVED[c] === 0) return false;
  }
  if (i === 0) return false;
  if (i === n) return true;
  const digits = n - i - 1;
  if (digits < 1 || digits > 5) return false;
  let port = 0;
  for (let j = i + 1; j < n; j++) {
    const d = value.charCodeAt(j) - 48;
    if (d < 0 || d > 9) return false;
    port = port * 10 + d;
  }
  return port <= 65535;
}

function isPort(text) {
  return text.length >= 1 && text.length <= 5 && /^[0-9]+$/.test(text) && Number(text) <= 65535;
}

/** RFC 3986 3.2.2 IPv6address: eight 16-bit groups, one `::` for a run of zeros, an IPv4 tail. */
function isIPv6(text) {
  const double = text.indexOf('::');
  if (double !== -1 && text.indexOf('::', double + 1) !== -1) return false;
  const parts = (h) => (h === '' ? [] : h.split(':'));
  const head = double === -1 ? parts(text) : parts(text.slice(0, double));
  const tail = double === -1 ? [] : parts(text.slice(double + 2));
  const groups = head.concat(tail);
  let words = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (i === groups.length - 1 && g.includes('.')) {
      if (!isIPv4(g)) return false;
      words += 2;
    } else if (HEX_GROUP.test(g)) words += 1;
    else return false;
  }
  return double === -1 ? words === 8 : words <= 7;
}

function isIPv4(text) {
  const octets = text.split('.');
  return octets.length === 4 && octets.every((o) => DEC_OCTET.test(o));
}

module.exports = { parseAuthority, isAuthority };
