'use strict';
// send's HTML documents: the redirect page and the error page it writes when nobody listens.
const escapeHtml = require('escape-html');
const statuses = require('statuses');

function createHtmlDocument(title, body) {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>' +
    title +
    '</title>\n</head>\n<body>\n<pre>' +
    body +
    '</pre>\n</body>\n</html>\n'
  );
}

/** A small HTML answer with send's security headers. */
function writeHtml(res, status, doc) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(doc));
  res.setHeader('Content-Security-Policy', "default-src 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

// Without a `next` (plain node:http), answer as send does when nobody listens for errors.
function callNext(req, res, next, err) {
  if (typeof next === 'function') return next(err);
  const status = err ? err.statusCode || 500 : 404;
  const doc = createHtmlDocument('Error', escapeHtml(statuses.message[status] || String(status)));
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  if (err && err.headers) for (const key of Object.keys(err.headers)) res.setHeader(key, err.headers[key]);
  writeHtml(res, status, doc);
  res.end(doc);
}

module.exports = { createHtmlDocument, writeHtml, callNext };
