'use strict';
// @fastify/static 10's URL checks, before a path reaches the file resolution: the route prefix
// (which may hold :params), decoding (with %23 and %3F, so files named with # or ? can be
// served), and the refusals of '..' and of every non-canonical spelling ('//', '/./', '\'), which
// could let a request skip a more specific route guard while still naming the same file.
const path = require('path');

const DOT_DOT_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/u;
const LEADING_DOT_DOT_SEGMENT = /^\/?\.\.(?:[\\/]|$)/u;
const ENCODED_HASH_OR_QUESTION_MARK = /%(?:23|3f)/giu;

/** (url, pathnameEnd) -> length of the matched prefix, or undefined (no match). */
function prefixMatcher(route) {
  const prefix = route.replace(/\*$/u, '');
  if (prefix === '/') return () => 0;
  if (!prefix.includes(':')) {
    return (url, end) => (prefix.length <= end && url.startsWith(prefix) ? prefix.length : undefined);
  }
  // literal parts and one `undefined` per :param (a non-empty run up to the next '/')
  const tokens = [];
  let start = 0;
  let i = 0;
  while (i < prefix.length) {
    if (prefix[i] !== ':') {
      i++;
      continue;
    }
    if (start !== i) tokens.push(prefix.slice(start, i));
    while (i < prefix.length && prefix[i] !== '/') i++;
    tokens.push(undefined);
    start = i;
  }
  if (start !== prefix.length) tokens.push(prefix.slice(start));
  return (url, end) => {
    let at = 0;
    for (const token of tokens) {
      if (token === undefined) {
        const from = at;
        const slash = url.indexOf('/', at);
        at = slash === -1 || slash > end ? end : slash;
        if (at === from) return undefined;
      } else {
        if (at + token.length > end || !url.startsWith(token, at)) return undefined;
        at += token.length;
      }
    }
    return at;
  };
}

/** The decoded path under the prefix; null to refuse (403); undefined when it is not ours (404). */
function pathnameForSend(url, matchPrefix) {
  const query = url.indexOf('?');
  const end = query === -1 ? url.length : query;
  const prefixLength = matchPrefix(url, end);
  if (prefixLength === undefined) return undefined;
  let pathname = url.slice(prefixLength, end);
  if (pathname === '') pathname = '/';
  else if (pathname[0] !== '/') pathname = '/' + pathname;
  try {
    const decodedUrl = decodePathname(url.slice(0, end));
    const decoded = decodePathname(pathname);
    // the whole URL: a route :param can swallow a '..' segment before the suffix
    if (DOT_DOT_SEGMENT.test(decodedUrl) && !LEADING_DOT_DOT_SEGMENT.test(decoded)) return null;
    if (isNonCanonical(decoded) || isNonCanonical(decodedUrl)) return null;
    return decoded;
  } catch {
    return undefined;
  }
}

const NAME_MAX = 255;
const PATH_MAX = 4096;

/**
 * A path @fastify/static's spelling check refuses on a case-sensitive file system: one stat()
 * fails on other than ENOENT/ENOTDIR (a NUL byte, a name or path too long).
 */
function unspellable(pathname, root) {
  if (pathname.indexOf('\0') !== -1) return true;
  const rootLength = typeof root === 'string' ? Buffer.byteLength(root) : 0;
  if (rootLength + Buffer.byteLength(pathname) >= PATH_MAX) return true;
  for (const segment of pathname.split('/'))
    if (segment.length > NAME_MAX / 3 && Buffer.byteLength(segment) > NAME_MAX) return true;
  return false;
}

/** '..' anywhere but leading (the resolution refuses that one itself) */
function hasInnerDotDot(pathname) {
  return DOT_DOT_SEGMENT.test(pathname) && !LEADING_DOT_DOT_SEGMENT.test(pathname);
}

function isNonCanonical(pathname) {
  if (pathname.length === 0) return false;
  if (pathname.includes('\\')) return true;
  return path.posix.normalize(pathname) !== pathname;
}

function decodePathname(pathname) {
  return decodeURI(pathname.replace(ENCODED_HASH_OR_QUESTION_MARK, decodeURIComponent));
}

/** Where a directory without its trailing slash redirects to (leading slashes collapsed). */
function redirectUrl(url) {
  let i = 0;
  while (i < url.length && (url[i] === '/' || url[i] === '\\')) i++;
  const parsed = new URL('/' + url.slice(i), 'http://localhost.com/');
  const slash = parsed.pathname.endsWith('/') ? '' : '/';
  return parsed.pathname + slash + (parsed.search || '');
}

/** allowedPath's view of a request path: posix-normalised when absolute. */
function normalizeRequestPathname(pathname) {
  return pathname.startsWith('/') ? path.posix.normalize(pathname) : pathname;
}

/** The file finally chosen, as a request path under `root` (for allowedPath), or undefined if outside. */
function finalPathname(selected, root, leadingSlash) {
  if (root === undefined) return selected;
  const relative = path.relative(path.resolve(root), selected);
  if (relative === '..' || relative.startsWith('..' + path.sep) || path.isAbsolute(relative)) return undefined;
  const posix = relative.split(path.sep).join('/');
  return leadingSlash ? '/' + posix : posix;
}

module.exports = {
  unspellable,
  prefixMatcher,
  pathnameForSend,
  hasInnerDotDot,
  isNonCanonical,
  redirectUrl,
  normalizeRequestPathname,
  finalPathname,
};
