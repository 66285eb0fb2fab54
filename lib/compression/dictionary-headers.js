'use strict';
// The dictionary transport's headers on a node:http-style response (Express, node:http, the
// responses Fastify and node-server wrap): Vary on Available-Dictionary beside Accept-Encoding
// (RFC 9842 6: a cache must key a dcz answer on the dictionary the request named), the Link that
// announces the dictionary on HTML answers, and the dictionary's own response.
const { isHtmlOrXhtml } = require('../http/html');
const { varyWith } = require('../http/vary');

/** `link` with `entry` appended (a Link value may be a string or an array of them). */
function linkWith(link, entry) {
  if (link === undefined || link === null || link === '') return entry;
  if (Array.isArray(link)) return link.includes(entry) ? link : [...link, entry];
  return String(link).includes(entry) ? link : `${link}, ${entry}`;
}

function dictionaryHeaders(transport, res) {
  res.setHeader('Vary', varyWith(res.getHeader('Vary'), 'Available-Dictionary'));
  const link = transport.link();
  if (link !== undefined && isHtmlOrXhtml(res.getHeader('Content-Type')))
    res.setHeader('Link', linkWith(res.getHeader('Link'), link));
}

function sendDictionary(transport, req, res) {
  const answer = transport.serve(req.method, req.originalUrl || req.url);
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

module.exports = { dictionaryHeaders, sendDictionary, linkWith };
