'use strict';
// HTTP/2 helpers for tests: a self-signed certificate made with openssl at test time, servers on
// an ephemeral loopback port (h2c through http2.createServer, TLS through
// http2.createSecureServer), and requests through Node's http2 client that fail on a reset
// stream (what a body dropped behind node:http2's compatibility API looks like to a client).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http2 = require('node:http2');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');

let credentials;

/** { key, cert } (PEM): a P-256 key and a one-day certificate for localhost, made once per process. */
function selfSignedCert() {
  if (credentials !== undefined) return credentials;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-h2-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    credentials = { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) };
    return credentials;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Server options for an HTTP/2 server: {} for h2c, the certificate for TLS. */
function serverOptions(secure) {
  return secure ? selfSignedCert() : {};
}

/** Listens on 127.0.0.1:0; resolves { server, url, secure, close }. */
function listenOn(server, secure) {
  trackSessions(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        server,
        secure,
        url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`,
        close: () => closeServer(server),
      });
    });
  });
}

const SESSIONS = Symbol('sessions');

// An http2 server keeps a session open until its client closes it: close() waits for them.
function trackSessions(server) {
  if (server[SESSIONS] !== undefined) return;
  const sessions = new Set();
  server[SESSIONS] = sessions;
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const session of server[SESSIONS] || []) session.destroy();
  });
}

/** An http2 server (h2c, or TLS when `secure`) with the compatibility API's handler. */
function listenH2(handler, { secure = false } = {}) {
  const server = secure
    ? http2.createSecureServer(serverOptions(true), handler)
    : http2.createServer(serverOptions(false), handler);
  return listenOn(server, secure);
}

/**
 * One request over a new session: { status, headers, body (Buffer) }. Rejects when the stream is
 * reset or the session fails. `url` is the server's origin (http: h2c, https: TLS).
 */
function h2request(url, pathname, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const session = http2.connect(url, secure ? { ca: selfSignedCert().cert, servername: 'localhost' } : {});
    session.on('error', reject);
    const stream = session.request({ ':method': method, ':path': pathname, ...headers });
    let head;
    const chunks = [];
    stream.on('response', (h) => {
      head = h;
    });
    stream.on('data', (c) => chunks.push(c));
    stream.on('error', (err) => {
      session.close();
      reject(err);
    });
    stream.on('end', () => {
      session.close();
      const out = {};
      for (const name of Object.keys(head)) if (name[0] !== ':') out[name] = head[name];
      resolve({ status: head[':status'], headers: out, body: Buffer.concat(chunks) });
    });
    stream.end(body);
  });
}

/** The body decoded by its Content-Encoding (gzip, deflate, br, zstd where zlib has it). */
function decode(res) {
  const coding = res.headers['content-encoding'];
  if (coding === undefined || coding === 'identity') return res.body;
  if (coding === 'br') return zlib.brotliDecompressSync(res.body);
  if (coding === 'gzip') return zlib.gunzipSync(res.body);
  if (coding === 'deflate') return zlib.inflateSync(res.body);
  if (coding === 'zstd' && typeof zlib.zstdDecompressSync === 'function') return zlib.zstdDecompressSync(res.body);
  throw new Error(`unexpected content-encoding ${coding}`);
}

module.exports = { selfSignedCert, serverOptions, trackSessions, closeServer, listenOn, listenH2, h2request, decode };
