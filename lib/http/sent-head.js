'use strict';
// The head a response actually went out with: what a cache must decide on. Whatever runs after
// the cache's own hook can still change it: on-headers listeners (express-session,
// cookie-session set Set-Cookie at writeHead), Koa middleware after `await next()` (koa-session),
// compression in front that holds the head back while it compresses (a late setHeader then
// succeeds). Node keeps the head it wrote as a string (`_header`), read here once the response
// has ended; where there is none (HTTP/2 compatibility responses, Bun), the header map.

function sentHead(res) {
  const head = res._header;
  // Bun keeps a placeholder there (' '), not the head: only a real status line is read
  if (typeof head !== 'string' || !head.startsWith('HTTP/'))
    return { status: res.statusCode, headers: res.getHeaders() };
  const lines = head.split('\r\n');
  const statusLine = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines[0]);
  const headers = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const had = headers[name];
    if (name === 'set-cookie') {
      if (had === undefined) headers[name] = [value];
      else had.push(value);
    } else headers[name] = had === undefined ? value : `${had}, ${value}`;
  }
  return { status: statusLine === null ? res.statusCode : Number(statusLine[1]), headers };
}

/**
 * A reader of single headers of the head `res` went out with, once it has: `getHeader(name)` (a
 * lower-case name) gives what sentHead(res).headers[name] would (Set-Cookie as an array), for a
 * caller that reads a few names of many responses: each is found in Node's head string, whose
 * lower-case copy is made once, without splitting the head into lines.
 */
function sentHeaderReader(res) {
  const head = res._header;
  if (typeof head !== 'string' || !head.startsWith('HTTP/')) {
    const headers = res.getHeaders();
    return (name) => headers[name];
  }
  const lower = head.toLowerCase(); // header text is Latin-1: the same length, the same offsets
  return (name) => {
    const key = `\r\n${name}:`;
    let values;
    for (let at = lower.indexOf(key); at !== -1; at = lower.indexOf(key, at + key.length)) {
      const start = at + key.length;
      const end = lower.indexOf('\r\n', start);
      const value = head.slice(start, end === -1 ? head.length : end).trim();
      if (values === undefined) values = [value];
      else values.push(value);
    }
    if (values === undefined) return undefined;
    return name === 'set-cookie' ? values : values.join(', ');
  };
}

/**
 * Calls `callback` once the response's head is final: at once when it has been written, else
 * when the response ends ('prefinish': end() has handed everything to the socket, not waiting
 * for a slow client to read it, so a coalesced request never waits on one; 'finish' where a
 * response emits no 'prefinish'). Not at all when the response closes first.
 */
function whenHeadSent(res, callback) {
  if (res.headersSent && res.writableEnded) return callback();
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    res.off('prefinish', once);
    res.off('finish', once);
    callback();
  };
  res.once('prefinish', once);
  res.once('finish', once);
  return undefined;
}

module.exports = { sentHead, sentHeaderReader, whenHeadSent };
