'use strict';
// Files rewritten while they are served (issue 14): a writer thread rewrites files in place and by
// rename while keep-alive clients fetch them, then every response is judged.
//
// File names say what each file is: c* are small (served from the cache), s* are large (streamed
// from disk); *-inplace.* are rewritten in place (truncate + chunked writes, as cp does, or chunked
// overwrite + truncate, as rsync --inplace does), *-rename.* by writing a temporary file and
// renaming it over the old one (an atomic deploy). Byte i of version v of a file is
// (v * 7 + i) % 251, so any slice of a body says which version it belongs to (modulo 251), and
// the version's size (sizeOf) says whether the whole body is that version.
//
// runChurn(handler, options) -> { counts, failures, seed }; a failure is a string naming the
// request and what was wrong with its answer.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { listenOn, contentTag } = require('./static-tree');

const FILES = [
  'c0-inplace.txt',
  'c1-inplace.txt',
  'c2-rename.txt',
  'c3-rename.txt',
  's0-inplace.bin',
  's1-inplace.bin',
  's2-rename.bin',
  's3-rename.bin',
];
const CACHED_MAX = 40 * 1024; // cached files stay under the test's maxFileSize (64 KiB)
const STREAMED_MIN = 100 * 1024;

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32 } = require('./seeded-random');

// The size of version v of a file: deterministic, so readers can check a body against it.
function sizeOf(name, v) {
  const r = mulberry32((v * 2654435761) ^ (name.charCodeAt(0) * 977) ^ (name.charCodeAt(1) * 131))();
  return name[0] === 'c' ? 1 + Math.floor(r * CACHED_MAX) : STREAMED_MIN + Math.floor(r * 300 * 1024);
}

function contentOf(name, v) {
  const size = sizeOf(name, v);
  const out = Buffer.allocUnsafe(size);
  const base = (v * 7) % 251;
  for (let i = 0; i < size; i++) out[i] = (base + i) % 251;
  return out;
}

const weakTag = contentTag;

// Runs in the writer thread: rewrites random files until `ms` have passed; reports the versions.
const WRITER = `
const fs = require('node:fs');
const path = require('node:path');
const { parentPort, workerData } = require('node:worker_threads');
const { contentOf, mulberry32 } = require(workerData.helper);
const { root, files, seed, shared } = workerData;
const control = new Int32Array(shared); // [0]: stop when 1, [1]: writes done
const random = mulberry32(seed);
const version = Object.fromEntries(files.map((f) => [f, 0]));
let writes = 0;
while (Atomics.load(control, 0) === 0) {
  // half of the writes (and of the requests) go to the cached in-place files: their loads then
  // often overlap a write, the case a reading must notice and redo
  const name = random() < 0.5 ? files[Math.floor(random() * 2)] : files[Math.floor(random() * files.length)];
  const v = ++version[name];
  const body = contentOf(name, v);
  // small writes keep a cached file changing for longer, so that loads overlap the writes
  const chunk = name[0] === 'c' ? 256 : 16384;
  const file = path.join(root, name);
  if (name.includes('rename')) {
    const tmp = path.join(root, '.tmp-' + name);
    fs.writeFileSync(tmp, body);
    fs.renameSync(tmp, file);
  } else {
    const truncateFirst = random() < 0.5; // cp: truncate, then write; rsync --inplace: overwrite, then truncate
    const fd = fs.openSync(file, truncateFirst ? 'w' : 'r+');
    for (let at = 0; at < body.length; at += chunk) fs.writeSync(fd, body, at, Math.min(chunk, body.length - at), at);
    if (!truncateFirst) fs.ftruncateSync(fd, body.length);
    fs.closeSync(fd);
  }
  writes++;
  Atomics.store(control, 1, writes);
}
parentPort.postMessage({ version, writes });
`;

function request(agent, port, urlPath, headers, timeoutMs) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (err) => done({ error: err }));
      res.on('aborted', () => done({ error: Object.assign(new Error('aborted'), { code: 'ECONNRESET' }) }));
    });
    const timer = setTimeout(() => {
      done({ hang: true });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => done({ error: err }));
    req.end();
  });
}

// What is wrong with one answer, or undefined. `versions` = highest version written per file.
function judge(name, range, r, versions, contentTags) {
  const streamed = name[0] === 's';
  if (r.hang) return 'no complete answer in time (hang)';
  if (r.error) {
    if (/^HPE_/.test(r.error.code || '')) return `HTTP parse error ${r.error.code}: ${r.error.message}`;
    // A stream whose file shrank is cut off on purpose; anything else is not expected.
    if (streamed && (r.error.code === 'ECONNRESET' || r.error.message === 'aborted')) return undefined;
    return `error ${r.error.code} ${r.error.message}`;
  }
  if (r.status !== (range ? 206 : 200)) return `status ${r.status}`;
  const announced = Number(r.headers['content-length']);
  if (announced !== r.body.length) return `content-length ${announced} but ${r.body.length} bytes`;
  let total = r.body.length;
  let start = 0;
  if (range) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(r.headers['content-range'] || '');
    if (!m) return `content-range ${r.headers['content-range']}`;
    start = Number(m[1]);
    total = Number(m[3]);
    if (Number(m[2]) - start + 1 !== r.body.length) return `content-range ${m[0]} for ${r.body.length} bytes`;
  }
  if (contentTags && !streamed && !range && r.headers.etag !== weakTag(r.body)) {
    return `etag ${r.headers.etag} is not the tag of the bytes sent, ${weakTag(r.body)}`;
  }
  if (name.includes('rename') && r.body.length > 0) {
    // Renamed into place whole: every body is (a slice of) exactly one version.
    const base = (r.body[0] - (start % 251) + 251) % 251;
    for (let i = 0; i < r.body.length; i++) {
      if (r.body[i] !== (base + start + i) % 251) return `bytes of two versions (offset ${start + i})`;
    }
    let whole = false;
    // (v * 7) % 251 === base  <=>  v % 251 === base * 36 % 251 (36 is 7's inverse mod 251)
    for (let v = (base * 36) % 251; v <= versions[name] && !whole; v += 251) whole = sizeOf(name, v) === total;
    if (!whole) return `a ${total}-byte body that is no version of the file (a version's start, another's length)`;
  }
  return undefined;
}

/**
 * handlerFor(root) -> node:http handler (with its own `close()` if any). Runs at least `ms` of
 * churn with `clients` keep-alive clients, longer (up to `maxMs`) until `minAnswers` whole answers
 * and as many writes were seen (a loaded machine is slow), then checks every file is served as
 * on disk within 1 s.
 * contentTags: false skips the ETag check (for a peer whose tags are size + mtime).
 */
async function runChurn(
  handlerFor,
  { ms = 2500, maxMs = 10000, minAnswers = 150, clients = 8, seed = 1, timeoutMs = 3000, contentTags = true } = {},
) {
  const root = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'ssr-native-churn-'));
  const versions = {};
  for (const name of FILES) {
    fs.writeFileSync(path.join(root, name), contentOf(name, 0));
    versions[name] = 0;
  }
  const handler = handlerFor(root);
  const server = await listenOn(handler);
  // Idle keep-alive connections stay open longer than a request may take: a body that ends short
  // then shows as the hang it is, not as a close by the server's idle timer.
  server.server.keepAliveTimeout = 2 * timeoutMs;
  const counts = { requests: 0, ok: 0, cutOff: 0, hangs: 0, parseErrors: 0, failures: 0, writes: 0 };
  const failures = [];
  const random = mulberry32(seed ^ 0x9e3779b9);
  const record = (name, range, r) => {
    counts.requests++;
    const wrong = judge(name, range, r, versions, contentTags);
    if (r.hang) counts.hangs++;
    else if (r.error && /^HPE_/.test(r.error.code || '')) counts.parseErrors++;
    else if (r.error && !wrong) counts.cutOff++;
    else if (!wrong) counts.ok++;
    if (wrong) {
      counts.failures++;
      if (failures.length < 20) failures.push(`GET /${name}${range ? ` range ${range}` : ''}: ${wrong}`);
    }
  };
  try {
    const shared = new SharedArrayBuffer(8);
    const control = new Int32Array(shared);
    const writer = new Worker(WRITER, {
      eval: true,
      workerData: { root, files: FILES, seed, shared, helper: __filename },
    });
    let writing = true;
    const started = Date.now();
    const stopper = setInterval(() => {
      const elapsed = Date.now() - started;
      const enough = counts.ok >= minAnswers && Atomics.load(control, 1) >= minAnswers;
      if ((elapsed >= ms && enough) || elapsed >= maxMs) {
        Atomics.store(control, 0, 1);
        clearInterval(stopper);
      }
    }, 20);
    const written = new Promise((resolve, reject) => {
      writer.once('message', (m) => {
        Object.assign(versions, m.version);
        counts.writes = m.writes;
        resolve();
      });
      writer.once('error', reject);
    }).finally(() => {
      writing = false;
      clearInterval(stopper);
    });
    // The writer only reports its versions at the end: meanwhile any version up to a generous
    // bound counts as written (a body must still be one whole version of the right size).
    for (const name of FILES) versions[name] = 1e5;
    const client = async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (writing) {
          const name = random() < 0.5 ? FILES[Math.floor(random() * 2)] : FILES[Math.floor(random() * FILES.length)];
          let range;
          if (random() < 0.25) {
            const a = Math.floor(random() * 50000);
            range = `bytes=${a}-${a + Math.floor(random() * 50000)}`;
          }
          const r = await request(agent, server.port, '/' + name, range ? { range } : {}, timeoutMs);
          // a range past the end of a version that just shrank is a fair 416
          if (range && r.status === 416) continue;
          record(name, range, r);
        }
      } finally {
        agent.destroy();
      }
    };
    await Promise.all([written, ...Array.from({ length: clients }, client)]);
    await writer.terminate();
    if (typeof handler.stats === 'function') {
      const stats = handler.stats();
      counts.rereads = stats.rereads;
      counts.unstableLoads = stats.unstableLoads;
    }

    // Writes have stopped: every file is served as it is on disk within 1 s.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const name of FILES) {
      const disk = fs.readFileSync(path.join(root, name));
      const deadline = Date.now() + 1000;
      let last;
      do {
        last = await request(agent, server.port, '/' + name, {}, timeoutMs);
        if (!last.error && !last.hang && last.status === 200 && disk.equals(last.body)) break;
        await new Promise((r) => setTimeout(r, 10));
      } while (Date.now() < deadline);
      const settledOk = !last.error && !last.hang && last.status === 200 && disk.equals(last.body);
      if (!settledOk) {
        counts.failures++;
        failures.push(
          `GET /${name} after the writes: not the ${disk.length} bytes on disk within 1 s (${last.hang ? 'hang' : last.error ? last.error.message : `${last.status}, ${last.body.length} bytes`})`,
        );
      }
      if (settledOk && contentTags && name[0] === 'c' && last.headers.etag !== weakTag(disk)) {
        counts.failures++;
        failures.push(`GET /${name} after the writes: etag ${last.headers.etag}, expected ${weakTag(disk)}`);
      }
    }
    agent.destroy();
  } finally {
    await server.close();
    if (typeof handler.close === 'function') handler.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { counts, failures, seed };
}

module.exports = { runChurn, contentOf, sizeOf, mulberry32, weakTag, FILES };

// node test/js/helpers/static-churn.js [serve-static|ssr-native] [seed]: one churn run over
// node:http, printed (serve-static's tags are size-mtime, so its ETags are not judged).
if (require.main === module) {
  const which = process.argv[2] || 'ssr-native';
  const handlerFor = (root) => {
    const mw =
      which === 'serve-static'
        ? require('serve-static')(root)
        : require('../../../lib/express/serve-static')(root, { maxFileSize: 64 * 1024 });
    const handler = (req, res) =>
      mw(req, res, (err) => {
        res.statusCode = err ? err.status || 500 : 404;
        res.end();
      });
    handler.close = () => mw.close && mw.close();
    if (mw.stats) handler.stats = () => mw.stats();
    return handler;
  };
  runChurn(handlerFor, { seed: Number(process.argv[3] || 1), contentTags: which !== 'serve-static' }).then(
    ({ counts, failures }) => {
      console.log(which, JSON.stringify(counts));
      for (const failure of failures) console.log('  ' + failure);
    },
  );
}
