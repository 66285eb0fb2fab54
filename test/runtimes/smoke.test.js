'use strict';
// Smoke suite for every runtime (Node 20-26 and Bun, see scripts/runtimes.js): every export of
// every entry point in package.json is called with hostile arguments and must answer with a
// value or a JS error, never a crash of the host; then the main paths run end to end with
// string and Buffer inputs, in worker threads, and the static server over node:http.
// Written against node:test, which `bun test` also runs.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

// Through the package's own name, so the same file runs in this repo and in a project that
// installed the packed tarball (npm run test:pack).
const pkg = require('ssr-native/package.json');

const entryPoints = Object.keys(pkg.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));

// Values a careless or hostile caller may pass anywhere.
function hostileValues() {
  const throwing = new Proxy(
    {},
    {
      get() {
        throw new Error('hostile getter');
      },
      has() {
        throw new Error('hostile has');
      },
      ownKeys() {
        throw new Error('hostile ownKeys');
      },
      getOwnPropertyDescriptor() {
        throw new Error('hostile descriptor');
      },
      getPrototypeOf() {
        throw new Error('hostile prototype');
      },
    },
  );
  const detachedView = new Uint8Array(16);
  structuredClone(detachedView.buffer, { transfer: [detachedView.buffer] });
  return [
    undefined,
    null,
    true,
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    2 ** 53,
    2 ** 32,
    10n,
    '',
    'text/html; charset=utf-8',
    '\u0000\ud800\udfff',
    'é'.repeat(5000),
    Symbol('hostile'),
    {},
    [],
    [1, 2, 3],
    Object.create(null),
    () => {},
    Buffer.alloc(0),
    Buffer.from('123456789'),
    new Uint16Array(3),
    new Float64Array(2),
    new DataView(new ArrayBuffer(4), 1, 2),
    new ArrayBuffer(8),
    detachedView,
    {
      toString() {
        throw new Error('hostile toString');
      },
      valueOf() {
        throw new Error('hostile valueOf');
      },
    },
    { headers: { 'content-type': 'text/plain' } },
    {
      getHeader() {
        return 'text/plain; x=1';
      },
    },
    { size: 3, mtime: new Date(0) },
    new Date(NaN),
    /re/,
    new Error('e'),
    throwing,
  ];
}

function describe(value) {
  try {
    if (typeof value === 'string') return JSON.stringify(value.slice(0, 30));
    if (typeof value === 'symbol' || typeof value === 'bigint')
      return String(value) + (typeof value === 'bigint' ? 'n' : '');
    if (value && typeof value === 'object') return Object.prototype.toString.call(value);
    return String(value);
  } catch {
    return '<hostile>';
  }
}

const settleWithin = (promise, ms) =>
  Promise.race([
    Promise.resolve(promise).then(
      () => 'resolved',
      (err) => err,
    ),
    new Promise((resolve) => setTimeout(() => resolve('pending'), ms).unref()),
  ]);

// Calls fn (or constructs it) and checks it answered with a value or an Error. A promise is
// checked when it settles: the caller collects them so slow calls (argon2) overlap, and calls
// beyond the argon2 semaphore's queue reject at once with SemaphoreFullError.
function callSafely(label, fn, args, { construct = false } = {}) {
  const what = () => `${label}(${args.map(describe).join(', ')})`;
  let result;
  try {
    result = construct ? new fn(...args) : fn(...args);
  } catch (err) {
    assert.ok(err instanceof Error, `${what()} threw a non-Error: ${describe(err)}`);
    return null;
  }
  // Release what a call may have opened (file caches, watchers).
  if (result && typeof result.close === 'function') {
    try {
      result.close();
    } catch {}
  }
  if (!result || typeof result.then !== 'function') return null;
  return settleWithin(result, 60000).then((outcome) => {
    if (outcome === 'pending') assert.fail(`${what()} still pending after 60 s`);
    if (outcome !== 'resolved')
      assert.ok(outcome instanceof Error, `${what()} rejected with a non-Error: ${describe(outcome)}`);
  });
}

function exportedFunctions() {
  const out = [];
  for (const entry of entryPoints) {
    const mod = require(entry);
    const add = (name, value) => {
      if (typeof value === 'function') out.push({ label: `${entry}.${name}`, fn: value });
      else if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value))
          if (typeof v === 'function') out.push({ label: `${entry}.${name}.${k}`, fn: v });
      }
    };
    if (typeof mod === 'function') add('(default)', mod);
    for (const [name, value] of Object.entries(mod)) add(name, value);
  }
  return out;
}

test('every entry point loads and has exports', () => {
  assert.ok(entryPoints.length >= 6, entryPoints.join(' '));
  for (const entry of entryPoints) {
    const mod = require(entry);
    assert.ok(mod && Object.keys(mod).length > 0, `${entry} exports nothing`);
  }
});

test('every exported function answers hostile arguments with a value or an Error', async () => {
  const values = hostileValues();
  const fns = exportedFunctions();
  assert.ok(fns.length >= 20, `only ${fns.length} exported functions found`);
  const pending = [];
  for (const { label, fn } of fns) {
    const isClass = /^class\b/.test(Function.prototype.toString.call(fn));
    pending.push(callSafely(label, fn, [], { construct: isClass }));
    for (const v of values) {
      for (const args of [[v], ['x', v], [Buffer.from('x'), v], [v, v]]) {
        pending.push(callSafely(label, fn, args, { construct: isClass }));
      }
    }
  }
  assert.ok(pending.length > 1000, `only ${pending.length} calls`);
  await Promise.all(pending);
});

test('etag and crc32: known answers from strings and Buffers', () => {
  const { etag, crc32 } = require(pkg.name);
  assert.equal(etag('123456789'), 'W/"9-cbf43926"');
  assert.equal(etag(Buffer.from('123456789')), 'W/"9-cbf43926"');
  assert.equal(etag('123456789', { weak: false }), '"9-cbf43926"');
  assert.equal(crc32('123456789'), 0xcbf43926);
  assert.equal(crc32(Buffer.from('56789'), crc32('1234')), 0xcbf43926);
  // Long enough for every SIMD path, with a chained split at an odd offset.
  const big = Buffer.alloc(1 << 20);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  assert.equal(crc32(big.subarray(777), crc32(big.subarray(0, 777))), crc32(big));
  assert.equal(etag(big.toString('latin1'), 'latin1'), etag(big));
});

test('content-type: parse and format from strings and request-like objects', () => {
  const contentType = require(`${pkg.name}/content-type`);
  const parsed = contentType.parse('text/HTML; charset="utf-8"; q=1');
  assert.equal(parsed.type, 'text/html');
  assert.deepEqual({ ...parsed.parameters }, { charset: 'utf-8', q: '1' });
  assert.equal(contentType.format({ type: 'text/html', parameters: { charset: 'utf-8' } }), 'text/html; charset=utf-8');
  assert.equal(contentType.parse({ headers: { 'content-type': 'application/json' } }).type, 'application/json');
  assert.throws(() => contentType.parse('bad type'), TypeError);
});

test('argon2: hash and verify with string and Buffer passwords', async () => {
  const argon2 = require(`${pkg.name}/argon2`);
  const options = { memoryCost: 1024, timeCost: 1, parallelism: 2 };
  const digest = await argon2.hash('correct horse', options);
  assert.match(digest, /^\$argon2id\$v=19\$m=1024,t=1,p=2\$/);
  assert.equal(await argon2.verify(digest, Buffer.from('correct horse')), true);
  assert.equal(await argon2.verify(digest, 'wrong'), false);
  const raw = await argon2.hash(Buffer.from('pw'), { ...options, raw: true, salt: Buffer.alloc(16, 1) });
  assert.ok(Buffer.isBuffer(raw) && raw.length === 32);
});

function get(port, rawPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serveStatic over node:http: files, revalidation and hostile paths', async () => {
  const serveStatic = require(`${pkg.name}/serve-static`);
  const { crc32 } = require(pkg.name);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-smoke-'));
  const body = Buffer.from('hello from every runtime\n'.repeat(100));
  fs.writeFileSync(path.join(root, 'a.txt'), body);
  fs.mkdirSync(path.join(root, 'dir'));
  fs.writeFileSync(path.join(root, 'dir', 'index.html'), '<p>index</p>');
  const middleware = serveStatic(root);
  const server = http.createServer((req, res) =>
    middleware(req, res, () => {
      res.statusCode = 404;
      res.end('next');
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const first = await get(port, '/a.txt');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, body);
    const tag = `W/"${body.length.toString(16)}-${crc32(body).toString(16).padStart(8, '0')}"`;
    assert.equal(first.headers.etag, tag);
    assert.equal((await get(port, '/a.txt', { 'if-none-match': tag })).status, 304);
    assert.equal((await get(port, '/a.txt', { range: 'bytes=0-4' })).body.toString(), 'hello');
    assert.equal((await get(port, '/dir/')).body.toString(), '<p>index</p>');
    for (const hostile of [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/%00',
      '/%ff%fe',
      '/a.txt%00.html',
      `/${'a/'.repeat(3000)}`,
      '//a.txt',
      '/dir',
      '/.hidden',
      '/a.txt/',
    ]) {
      const res = await get(port, hostile);
      assert.ok(res.status >= 200 && res.status < 600, `${hostile.slice(0, 40)} -> ${res.status}`);
      assert.ok(!res.body.includes('root:'), hostile);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    if (typeof middleware.close === 'function') middleware.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('worker threads: every piece works in workers, and terminating them mid-work is safe', async () => {
  const fixture = path.join(__dirname, 'smoke-worker.js');
  const results = await Promise.all(
    [0, 1, 2].map(
      (i) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(fixture, { workerData: { mode: 'answer', i } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  for (const r of results) assert.deepEqual(r, { etag: 'W/"9-cbf43926"', type: 'text/html', verified: true });
  // Start long hashes and etags in workers, then terminate them while the work is in flight.
  for (let round = 0; round < 4; round++) {
    const worker = new Worker(fixture, { workerData: { mode: 'busy' } });
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
  }
  // The host is still alive and the addon still answers on the main thread.
  assert.equal(require(pkg.name).etag('123456789'), 'W/"9-cbf43926"');
  const argon2 = require(`${pkg.name}/argon2`);
  assert.match(await argon2.hash('after', { memoryCost: 1024, timeCost: 1 }), /^\$argon2id\$/);
});
