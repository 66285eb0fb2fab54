'use strict';
// The path rules send, koa-send and @fastify/send share once a URL path is cut out of the
// request: percent-decoding, the '..' segment test and the dotfile tests. Where the three differ
// (which segments count as hidden, what a failure answers) stays with each adapter.
const { sep } = require('path');

/** A '..' segment (either separator), the traversal send and @fastify/send refuse with 403. */
const UP_PATH_REGEXP = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/** decodeURIComponent, or null for a malformed escape (every adapter answers 400 for it). */
function decodePath(p) {
  try {
    return decodeURIComponent(p);
  } catch {
    return null;
  }
}

/** @hono/node-server's decoding: decodeURI, or each run of escapes that decodes, the rest kept. */
function decodeUriLenient(str) {
  try {
    return decodeURI(str);
  } catch {
    return str.replace(/(?:%[0-9A-Fa-f]{2})+/g, (match) => {
      try {
        return decodeURI(match);
      } catch {
        return match;
      }
    });
  }
}

/** send's and @fastify/send's dotfile test: a segment longer than one character starts with '.'. */
function containsDotFile(parts) {
  for (const part of parts) if (part.length > 1 && part[0] === '.') return true;
  return false;
}

/** koa-send's hidden test: a segment under `root` (a '.' alone included) starts with '.'. */
function isHidden(root, filePath) {
  const parts = filePath.substr(root.length).split(sep);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i][0] === '.') return true;
  }
  return false;
}

module.exports = { UP_PATH_REGEXP, decodePath, decodeUriLenient, containsDotFile, isHidden };
