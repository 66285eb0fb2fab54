'use strict';
// The dictionary transport's headers on a node:http-style response (Express, node:http, the
// responses Fastify and node-server wrap): Vary on Available-Dictionary beside Accept-Encoding
// (RFC 9842 6: a cache must key a dcz answer on the dictionary the request named), the Link that
// announces the dictionary on HTML answers, and the dictionary's own response.
const HTML_REGEXP = /^\s*(?:text\/html|application\/xhtml\+xml)\b/i;

/** `vary` with `name` added unless listed already (or `*`); the value to set. */
function varyWith(vary, name) {
  const header = Array.isArray(vary) ? vary.join(', ') : vary === undefined || vary === null ? '' : String(vary);
  const lower = name.toLowerCase();
  for (const item of header.split(',')) {
    const field = item.trim().toLowerCase();
    if (field === '*' || field === lower) return header;
  }
  return header ? `${header}, ${name}` : name;
}

/** `link` with `entry` appended (a Link value may be a string or an array of them). */
function linkWith(link, entry) {
  if (link === undefined || link === null || link === '') return entry;
  if (Array.isArray(link)) return link.includes(entry) ? link : [...link, entry];
  return String(link).includes(entry) ? link : `${link}, ${entry}`;
}

function isHtml(type) {
  return typeof type === 'string' && HTML_REGEXP.test(type);
}

function dictionaryHeaders(transport, res) {
  res.setHeader('Vary', varyWith(res.getHeader('Vary'), 'Available-Dictionary'));
  const link = transport.link();
  if (link !== undefined && isHtml(res.getHeader('Content-Type')))
    res.setHeader('Link', linkWith(res.getHeader('Link'), link));
}

function sendDictionary(transport, req, res) {
  const answer = transport.serve(req.method, req.originalUrl || req.url);
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

module.exports = { dictionaryHeaders, sendDictionary, varyWith, linkWith, isHtml };
