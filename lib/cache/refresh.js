'use strict';
// Background refresh (RFC 5861 stale-while-revalidate; nginx proxy_cache_background_update): a
// stale entry is served at once and the page is rendered again by a request this process sends
// to its own server, over the connection's local address. The engine hands it the request to
// send: the target and only the headers that form the entry's key (Host, keyed forwarding
// headers, the Vary'd values), never the triggering client's others, and a ticket (a
// per-process random token and a number; with sharedMemoryStore a random id recorded in the
// segment, which any worker of the machine takes) that marks it as a refresh: the cache renders it,
// counts it as coming from the triggering client's address rather than from this server's own,
// and stores the result; a client cannot forge the ticket.
//
// Going through the server rather than calling the handler directly is what makes one
// mechanism work for every framework the adapters support: the refresh runs the same
// middleware, routes and error handling as a real request.
const http = require('http');
const http2 = require('http2');
const https = require('https');
const { HOP_BY_HOP } = require('../http/hop-by-hop');

const REFRESH_HEADER = 'x-ssr-native-cache-refresh';

// Request headers never sent with a refresh, whatever a custom key names: hop-by-hop ones, a
// body's, the conditionals (the refresh needs the whole page) and the refresh header itself.
const DROPPED = new Set([
  ...HOP_BY_HOP,
  'expect',
  'content-length',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
  'range',
  REFRESH_HEADER,
]);

function refreshThroughServer(req, { token, header, timeout }, done) {
  const socket = req.socket;
  if (!socket || !socket.localPort) return done(false);
  const headers = {};
  // pseudo-headers (HTTP/2's :method, :path, :authority, :scheme) are not header fields
  for (const name of Object.keys(req.headers))
    if (!DROPPED.has(name) && name[0] !== ':') headers[name] = req.headers[name];
  headers[header] = token;
  const secure = socket.encrypted === true;
  // a request that came over HTTP/2 is refreshed over HTTP/2: an h2c server speaks nothing else
  if (req.headers[':authority'] !== undefined || req.headers[':scheme'] !== undefined)
    return refreshOverHttp2(req, headers, secure, timeout, done);
  const client = (secure ? https : http).request({
    host: socket.localAddress,
    port: socket.localPort,
    method: 'GET',
    path: req.url,
    headers,
    agent: false,
    timeout,
    // our own server on our own address: its certificate names the site, not this address
    ...(secure ? { rejectUnauthorized: false, servername: undefined } : {}),
  });
  client.on('response', (res) => {
    res.on('error', () => done(false));
    res.on('end', () => done(res.statusCode < 500));
    res.resume();
  });
  client.on('timeout', () => client.destroy(new Error('refresh timed out')));
  client.on('error', () => done(false));
  client.end();
}

function refreshOverHttp2(req, headers, secure, timeout, done) {
  const socket = req.socket;
  let finished = false;
  const finish = (ok) => {
    if (finished) return;
    finished = true;
    session.destroy();
    done(ok);
  };
  const address = socket.localAddress.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
  const session = http2.connect(`${secure ? 'https' : 'http'}://${address}:${socket.localPort}`, {
    // our own server on our own address: its certificate names the site, not this address
    ...(secure ? { rejectUnauthorized: false, servername: '' } : {}),
  });
  session.on('error', () => finish(false));
  session.setTimeout(timeout, () => finish(false));
  const authority = req.headers[':authority'];
  const stream = session.request({
    ...headers,
    ':method': 'GET',
    ':path': req.url,
    ...(authority !== undefined ? { ':authority': authority } : {}),
  });
  let status = 0;
  stream.on('response', (head) => {
    status = head[':status'];
  });
  stream.on('error', () => finish(false));
  stream.on('end', () => finish(status > 0 && status < 500));
  stream.resume();
  stream.end();
}

module.exports = { refreshThroughServer, REFRESH_HEADER };
