'use strict';
// A throw-away file tree for the static-serving tests, and a raw HTTP client that sends the path
// exactly as given (no URL normalisation: "/../x" and "%2e%2e" reach the server untouched).
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');

function makeTree(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-static-'));
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(root, name);
    if (name.endsWith('/')) {
      fs.mkdirSync(full, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  // One fixed mtime for every file, so Last-Modified is the same whoever serves it.
  const when = new Date('2024-05-06T07:08:09Z');
  for (const name of Object.keys(files)) {
    if (!name.endsWith('/')) fs.utimesSync(path.join(root, name), when, when);
  }
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** { status, headers, rawHeaders, body } */
function rawRequest(port, rawPath, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function listenOn(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.keepAliveTimeout = 1000;
    server.listen(0, '127.0.0.1', () => {
      resolve({
        server,
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Polls `check` (async) every 10 ms for up to `ms`; resolves with its last value. */
async function eventually(check, ms = 1000) {
  const deadline = Date.now() + ms;
  let value;
  while (Date.now() < deadline) {
    value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

/** The ETag serveStatic must give these bytes: W/"<length hex>-<CRC-32 hex>", the CRC from zlib
 *  (an outside reference, not our own code). */
function contentTag(body) {
  return `W/"${body.length.toString(16)}-${(zlib.crc32(body) >>> 0).toString(16).padStart(8, '0')}"`;
}

module.exports = { makeTree, rawRequest, listenOn, eventually, agent, contentTag };
