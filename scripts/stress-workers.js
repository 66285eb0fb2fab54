'use strict';
// Stress harness for worker-thread teardown and cache lifetimes: rounds of worker_threads that load
// files into FileCache, serve them (compress on) through serveStatic on Express and serve() on Koa
// over real HTTP, and hash with argon2, terminated at chosen moments; meanwhile the main thread
// serves the same tree through caches with a tiny maxBytes (constant eviction), closes them under
// in-flight responses and checks every body it gets against the file on disk.
//
//   node scripts/stress-workers.js [--seed N] [--seconds S] [--rounds-per-batch R] [--tolerate-node-http-abort]
//                                  [--replay test/stress/batches.txt]
//   node scripts/stress-workers.js --batch B --mode mixed|workers-only [--rounds R]   (one batch)
// --seconds bounds the run: no batch starts, and no round within a batch, after it (a run takes
// --seconds plus at most one round).
// --replay <file>: first every batch the file lists (`<batch seed> <mode> [# why]` a line: the
// batches that ever caught something), each whole, then random batches for --seconds.
//
// The parent runs batches of rounds in child processes, one at a time, so a crash (SIGSEGV,
// SIGABRT from a sanitizer, a fatal Node-API error) or a stall ends that child, not the harness:
// the parent prints the batch's seed and mode and the command that replays it, and exits 1.
// A batch seed fixes every choice (files, which workers, when each is terminated, requests,
// closes); thread timing is not replayable, so a replay re-runs the same schedule, which may need
// a few runs to hit the same interleaving. Under a sanitizer: node scripts/sanitize.js run asan
// scripts/stress-workers.js --seconds 60 (the environment reaches every child).
//
// Termination moments, per worker: before (right after new Worker, before its script runs),
// online (as its first message arrives: loads just queued), during (a random 0-40 ms after
// online: loads, compressions, hashes and requests in flight), loaded (in the message sent from
// its first load callback), after (once every activity has completed at least once, still
// running), exit (the worker calls process.exit from a load callback), natural (closes its
// caches and servers and ends by itself).
// Modes: mixed (the main thread uses the addon too) and workers-only (only workers load it, so the
// addon is unloaded whenever the last worker using it goes: its threads must not outlive it).
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const { mulberry32 } = require('../test/js/helpers/seeded-random');

const PKG = path.join(__dirname, '..');
const MOMENTS = ['before', 'online', 'during', 'loaded', 'after', 'exit', 'natural'];
const ENCODINGS = ['gzip, deflate, br, zstd', 'gzip', 'br', 'identity', 'br;q=0.5, gzip', ''];
const CLOSED_BODY = 'error:FileCache is closed';

function argValue(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const pick = (rng, list) => list[Math.floor(rng() * list.length)];
const sha1 = (bytes) => crypto.createHash('sha1').update(bytes).digest('hex');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A tree of compressible and incompressible files, some over 64 KiB (the cache maps those with
// mmap, so a body freed too early faults at once instead of reading stale heap memory).
function makeTree(rng) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-stress-'));
  const files = {};
  const count = 14 + Math.floor(rng() * 10);
  for (let i = 0; i < count; i++) {
    const kind = pick(rng, ['css', 'js', 'html', 'txt', 'png']);
    const size = rng() < 0.3 ? 65536 + Math.floor(rng() * 120000) : 200 + Math.floor(rng() * 20000);
    let bytes;
    if (kind === 'png') {
      bytes = Buffer.alloc(size);
      for (let j = 0; j < size; j++) bytes[j] = Math.floor(rng() * 256);
    } else {
      const words = ['color', 'margin', 'const', 'return', '<div>', 'lorem', 'ipsum', 'é', '→', '\n'];
      let text = '';
      while (text.length < size) text += pick(rng, words) + ' ';
      bytes = Buffer.from(text);
    }
    const name = `${i % 3 === 0 ? 'sub/' : ''}f${i}.${kind}`;
    fs.mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), bytes);
    files[name] = { size: bytes.length, sha1: sha1(bytes) };
  }
  return { dir, files, names: Object.keys(files) };
}

// GET url: { status, headers, body } with the body decoded per Content-Encoding.
function get(port, urlPath, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        let body = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        try {
          if (encoding === 'gzip') body = zlib.gunzipSync(body);
          else if (encoding === 'br') body = zlib.brotliDecompressSync(body);
        } catch (err) {
          return reject(
            new Error(
              `${urlPath}: ${encoding} body does not decode: ${err.message} (${res.statusCode}, ${JSON.stringify(res.headers)}, ${body.length} bytes)`,
            ),
          );
        }
        resolve({ status: res.statusCode, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

// One request with random Accept-Encoding (or an identity range); throws unless the answer is
// the file's exact bytes, its exact range, or the closed-cache 500 when `closedOk`. `target`:
// { port, ranges } (Koa's serve(), like koa-send, answers a range with the whole file).
async function checkedRequest(rng, target, tree, closedOk, onStart = () => {}) {
  const name = pick(rng, tree.names);
  const expected = tree.files[name];
  const headers = {};
  let range = null;
  if (rng() < 0.2 && expected.size > 10) {
    const start = Math.floor(rng() * (expected.size - 1));
    const end = Math.min(expected.size - 1, start + Math.floor(rng() * 5000));
    range = { start, end };
    headers.range = `bytes=${start}-${end}`;
    headers['accept-encoding'] = 'identity';
  } else {
    const ae = pick(rng, ENCODINGS);
    if (ae) headers['accept-encoding'] = ae;
  }
  onStart(`${target.name} /${name} ${JSON.stringify(headers)} at ${Date.now()}`);
  const r = await get(target.port, `/${name}`, headers).catch((err) => {
    err.message = `${target.name} ${JSON.stringify(headers)}: ${err.message}`;
    throw err;
  });
  if (r.status === 500 && closedOk() && r.body.toString() === CLOSED_BODY) return 'closed';
  if (range && target.ranges) {
    if (r.status !== 206)
      throw new Error(`/${name} range ${headers.range}: status ${r.status} ${r.body.toString().slice(0, 200)}`);
    const file = fs.readFileSync(path.join(tree.dir, name));
    if (!r.body.equals(file.subarray(range.start, range.end + 1)))
      throw new Error(`/${name} range ${headers.range}: wrong bytes`);
    return 'range';
  }
  if (r.status !== 200) throw new Error(`/${name}: status ${r.status} ${r.body.toString().slice(0, 200)}`);
  if (r.body.length !== expected.size || sha1(r.body) !== expected.sha1) {
    throw new Error(
      `${target.name} /${name} (${r.headers['content-encoding'] || 'identity'}): wrong bytes (${r.body.length} of ${expected.size})`,
    );
  }
  return r.headers['content-encoding'] || 'identity';
}

// Express and Koa apps over swappable middleware, with an error handler that names the error,
// so a request that met a closed cache is told apart from any other failure.
function makeApps(express, Koa) {
  const holder = { express: null, koa: null };
  const app = express();
  app.use((req, res, next) => holder.express(req, res, next));
  app.use((req, res) => {
    res.statusCode = 404;
    res.end('not found');
  });
  app.use((err, req, res, next) => {
    res.statusCode = 500;
    res.end(`error:${err.message}`);
  });
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.status = 500;
      ctx.body = `error:${err.message}`;
    }
  });
  koa.use((ctx, next) => holder.koa(ctx, next));
  return { holder, express: app, koa: koa.callback() };
}

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// ---- worker thread: every activity at once, reporting phases to the parent.
async function workerMain() {
  const { dir, files, seed, moment } = workerData;
  const rng = mulberry32(seed);
  const tree = { dir, files, names: Object.keys(files) };
  const { serveStatic, FileCache } = require(PKG);
  const { serve } = require(path.join(PKG, 'lib', 'koa'));
  const argon2 = require(path.join(PKG, 'lib', 'argon2'));
  const apps = makeApps(require('express'), require('koa'));
  const maxBytes = 100000 + Math.floor(rng() * 200000);
  const mw = serveStatic(dir, { compress: true, maxBytes });
  const koaMw = serve(dir, { compress: true, maxBytes });
  apps.holder.express = mw;
  apps.holder.koa = koaMw;
  const cache = new FileCache({ root: dir, maxBytes });
  const servers = await Promise.all([listen(apps.express), listen(apps.koa)]);
  const ports = servers.map((s, i) => ({
    port: s.address().port,
    ranges: i === 0,
    name: i === 0 ? 'worker express' : 'worker koa',
  }));
  const done = new Set();
  const fail = (err) => parentPort.postMessage({ fail: String((err && err.stack) || err) });
  const finished = (what) => {
    if (done.has(what)) return;
    done.add(what);
    if (what === 'load') parentPort.postMessage({ phase: 'loaded' });
    if (done.size === 3) parentPort.postMessage({ phase: 'idle' });
  };
  let stop = false;
  // what is outstanding, for the parent's report when this worker does not end in time
  const pending = { loads: new Set(), requests: new Set(), hashes: 0, natural: 'running' };
  parentPort.on('message', (message) => {
    if (message === 'status')
      parentPort.postMessage({
        status: {
          ...pending,
          loads: [...pending.loads],
          requests: [...pending.requests],
          done: [...done],
          stop,
          now: Date.now(),
        },
      });
  });
  parentPort.postMessage({ phase: 'online' });

  // loads: bursts into a tiny cache, bodies checked and some kept across evictions
  const kept = [];
  const loops = [];
  loops.push(
    (async () => {
      while (!stop) {
        const burst = tree.names.filter(() => rng() < 0.5);
        await Promise.all(
          burst.map(
            (name, i) =>
              new Promise((resolve) => {
                const key = `${name}#${i}`;
                pending.loads.add(key);
                cache.load(path.join(dir, name), (result) => {
                  pending.loads.delete(key);
                  if (moment === 'exit' && rng() < 0.3) process.exit(0);
                  if (result.body) {
                    if (sha1(result.body) !== files[name].sha1) fail(new Error(`worker load ${name}: wrong bytes`));
                    if (rng() < 0.2) kept.push([name, result.body]);
                  }
                  resolve();
                });
              }),
          ),
        );
        if (kept.length > 20) {
          for (const [name, body] of kept.splice(0))
            if (sha1(body) !== files[name].sha1) fail(new Error(`worker kept ${name}: bytes changed`));
        }
        finished('load');
        await new Promise((resolve) => setImmediate(resolve));
      }
    })().catch(fail),
  );
  // requests through both frameworks
  loops.push(
    (async () => {
      while (!stop) {
        await Promise.all(
          Array.from({ length: 6 }, async () => {
            let what;
            await checkedRequest(
              rng,
              pick(rng, ports),
              tree,
              () => false,
              (description) => pending.requests.add((what = description)),
            );
            pending.requests.delete(what);
          }),
        );
        finished('serve');
      }
    })().catch(fail),
  );
  // argon2 with a small arena; a full semaphore (429) is an answer too
  loops.push(
    (async () => {
      while (!stop) {
        try {
          pending.hashes++;
          await argon2.hash(`password-${rng()}`, {
            memoryCost: 64 + Math.floor(rng() * 512),
            timeCost: 1,
            parallelism: 1 + Math.floor(rng() * 2),
          });
        } catch (err) {
          if (err.name !== 'SemaphoreFullError') throw err;
        } finally {
          pending.hashes--;
        }
        finished('hash');
      }
    })().catch(fail),
  );

  if (moment === 'natural') {
    parentPort.on('message', async (message) => {
      if (message !== 'finish') return;
      stop = true;
      pending.natural = 'waiting for the loops';
      await Promise.all(loops);
      pending.natural = 'closing servers';
      mw.close();
      koaMw.close();
      cache.close();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      pending.natural = 'closed; the worker should end';
      parentPort.close();
    });
  }
}

// ---- child process: one batch of rounds.
async function batchMain(batchSeed, mode, rounds, until) {
  const rng = mulberry32(batchSeed);
  const tree = makeTree(rng);
  const stats = {
    rounds: 0,
    workers: 0,
    moments: {},
    requests: 0,
    closedAnswers: 0,
    mainCloses: 0,
    heldBodiesChecked: 0,
  };
  let main = null;
  if (mode === 'mixed') {
    const { serveStatic, FileCache } = require(PKG);
    const { serve } = require(path.join(PKG, 'lib', 'koa'));
    const apps = makeApps(require('express'), require('koa'));
    const servers = await Promise.all([listen(apps.express), listen(apps.koa)]);
    main = {
      serveStatic,
      FileCache,
      serve,
      apps,
      servers,
      ports: servers.map((s, i) => ({ port: s.address().port, ranges: i === 0, name: i === 0 ? 'express' : 'koa' })),
    };
  }
  try {
    // the parent's deadline ends a batch early (after one round at least)
    for (let round = 0; round < rounds && (round === 0 || Date.now() < until); round++) {
      const roundWork = [];
      let closing = false;
      if (main) {
        // fresh caches each round, tiny so that requests evict each other's entries; after a
        // random number of answers both are closed under the requests in flight and replaced
        const maxBytes = 80000 + Math.floor(rng() * 150000);
        const open = () => {
          main.apps.holder.express = main.serveStatic(tree.dir, { compress: true, maxBytes });
          main.apps.holder.koa = main.serve(tree.dir, { compress: true, maxBytes });
          return { express: main.apps.holder.express, koa: main.apps.holder.koa };
        };
        let current = open();
        const closeAfter = Math.floor(rng() * 40);
        const closeDelay = rng() * 10;
        let answered = 0;
        const closedOk = () => closing;
        const closeCurrent = () => {
          const { express, koa } = current;
          express.close();
          koa.close();
        };
        roundWork.push(
          (async () => {
            await Promise.all(
              Array.from({ length: 4 }, async () => {
                for (let i = 0; i < 12; i++) {
                  const outcome = await checkedRequest(rng, pick(rng, main.ports), tree, closedOk);
                  stats.requests++;
                  if (outcome === 'closed') stats.closedAnswers++;
                  if (++answered === closeAfter) {
                    setTimeout(() => {
                      closing = true;
                      closeCurrent();
                      current = open();
                      stats.mainCloses++;
                    }, closeDelay);
                  }
                }
              }),
            );
            await sleep(closeDelay + 1);
            closeCurrent();
          })(),
        );
        // a FileCache whose bodies are held across eviction, close() and collection
        roundWork.push(
          (async () => {
            const cache = new main.FileCache({ root: tree.dir, maxBytes: 70000 + Math.floor(rng() * 100000) });
            const held = [];
            for (const name of tree.names.filter(() => rng() < 0.6)) {
              const result = await cache.get(path.join(tree.dir, name));
              if (result.body) held.push([name, result.body]);
              if (rng() < 0.05) break;
            }
            cache.close();
            if (global.gc) global.gc();
            await sleep(rng() * 20);
            for (const [name, body] of held) {
              if (sha1(body) !== tree.files[name].sha1) throw new Error(`held body of ${name} changed after close`);
              stats.heldBodiesChecked++;
            }
          })(),
        );
      }
      const count = 2 + Math.floor(rng() * 3);
      for (let w = 0; w < count; w++) {
        const moment = pick(rng, MOMENTS);
        const delay = rng() * 40;
        stats.moments[moment] = (stats.moments[moment] || 0) + 1;
        stats.workers++;
        roundWork.push(runWorker(tree, Math.floor(rng() * 2 ** 32), moment, delay));
      }
      await Promise.all(roundWork);
      if (global.gc) global.gc();
      stats.rounds++;
    }
  } finally {
    if (main) await Promise.all(main.servers.map((s) => new Promise((resolve) => s.close(resolve))));
    fs.rmSync(tree.dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}

// Starts one worker and ends it at `moment`; resolves when it has exited, rejects if it reported
// a wrong body or an error, or did not end within 30 s (a stall).
function runWorker(tree, seed, moment, delay) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: { dir: tree.dir, files: tree.files, seed, moment } });
    // no end within 60 s is a stall: ask the worker what is outstanding, then fail
    const timer = setTimeout(() => {
      worker.postMessage('status');
      setTimeout(
        () =>
          reject(new Error(`worker (${moment}) did not end within 60 s; outstanding: ${JSON.stringify(lastStatus)}`)),
        3000,
      );
    }, 60000);
    let lastStatus = 'no answer to a status request (event loop blocked, or the script ended)';
    let failure = null;
    const terminate = () => worker.terminate();
    if (moment === 'before') terminate();
    worker.on('message', (message) => {
      if (message.status) {
        lastStatus = message.status;
      } else if (message.fail) {
        failure = new Error(`worker (${moment}): ${message.fail}`);
        terminate();
      } else if (message.phase === 'online') {
        if (moment === 'online') terminate();
        else if (moment === 'during') setTimeout(terminate, delay);
      } else if (message.phase === 'loaded' && moment === 'loaded') {
        terminate();
      } else if (message.phase === 'idle') {
        if (moment === 'after') setTimeout(terminate, delay);
        else if (moment === 'natural') worker.postMessage('finish');
        else if (moment === 'exit') setTimeout(terminate, 2000); // in case no callback exited
      }
    });
    worker.on('error', (err) => {
      failure = failure || new Error(`worker (${moment}) threw: ${(err && err.stack) || err}`);
    });
    worker.on('exit', () => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve();
    });
  });
}

// ---- parent: batches in child processes until the time is up.
function runBatch(batchSeed, mode, rounds, until) {
  return new Promise((resolve) => {
    const args = [
      ...process.execArgv,
      '--expose-gc',
      __filename,
      '--batch',
      String(batchSeed),
      '--mode',
      mode,
      '--rounds',
      String(rounds),
      '--until',
      String(until),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000 + rounds * 60000); // a stall the workers did not report
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      let stats = null;
      try {
        stats = JSON.parse(stdout.trim().split('\n').pop());
      } catch {}
      resolve({ code, signal, stats, stderr });
    });
  });
}

// The batches a --replay file lists: `<batch seed> <mixed|workers-only>` a line, # comments.
function recordedBatches(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const [seed, mode] = line.split(/\s+/);
      if (!/^\d+$/.test(seed) || !['mixed', 'workers-only'].includes(mode))
        throw new Error(`${file}: "${line}" is not "<batch seed> <mixed|workers-only>"`);
      return { batchSeed: Number(seed) >>> 0, mode };
    });
}

async function parentMain() {
  const seed = Number(argValue('--seed', String(crypto.randomInt(2 ** 32)))) >>> 0;
  const seconds = Number(argValue('--seconds', '60'));
  const rounds = Number(argValue('--rounds-per-batch', '6'));
  const tolerateHttpAbort = process.argv.includes('--tolerate-node-http-abort');
  console.log(`stress-workers: seed ${seed}, ${seconds} s, ${rounds} rounds per batch (replay: --seed ${seed})`);
  const rng = mulberry32(seed);
  const begun = Date.now();
  let deadline = null; // --seconds of random batches, counted from the first of them
  const total = {
    batches: 0,
    rounds: 0,
    workers: 0,
    moments: {},
    requests: 0,
    closedAnswers: 0,
    mainCloses: 0,
    heldBodiesChecked: 0,
  };
  const replayFile = argValue('--replay', null);
  const replays = replayFile ? recordedBatches(replayFile) : [];
  if (replayFile) console.log(`stress-workers: replaying the ${replays.length} batches of ${replayFile} first`);
  while (replays.length || deadline === null || Date.now() < deadline) {
    const replay = replays.shift();
    if (!replay && deadline === null) deadline = Date.now() + seconds * 1000;
    const batchSeed = replay ? replay.batchSeed : Math.floor(rng() * 2 ** 32);
    const mode = replay ? replay.mode : rng() < 0.7 ? 'mixed' : 'workers-only';
    const started = Date.now();
    const result = await runBatch(batchSeed, mode, rounds, replay ? Infinity : deadline);
    if (result.code !== 0 || !result.stats) {
      // Node 20's own HTTP parser aborts now and then when its worker is terminated mid-parse
      // (FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal under llhttp__internal_execute, no
      // addon frame): a Node bug, not ours; --tolerate-node-http-abort counts it and goes on.
      if (
        tolerateHttpAbort &&
        result.signal === 'SIGABRT' &&
        /ToLocalChecked Empty MaybeLocal/.test(result.stderr) &&
        /llhttp__internal_execute/.test(result.stderr) &&
        !/ssr_native/.test(result.stderr)
      ) {
        total.nodeHttpAborts = (total.nodeHttpAborts || 0) + 1;
        console.log(
          `stress-workers: batch (${mode}, --batch ${batchSeed}): node's HTTP parser aborted in a terminated worker (tolerated)`,
        );
        continue;
      }
      console.error(result.stderr);
      console.error(
        `stress-workers: FAILED in batch ${total.batches + 1} of seed ${seed}: ` +
          `${result.signal ? `killed by ${result.signal}` : `exit code ${result.code}`}\n` +
          `  replay the batch: node scripts/stress-workers.js --batch ${batchSeed} --mode ${mode} --rounds ${rounds}`,
      );
      process.exit(1);
    }
    total.batches++;
    console.log(
      `stress-workers: batch ${total.batches} (${mode}, --batch ${batchSeed}) clean in ${((Date.now() - started) / 1000).toFixed(0)} s: ${result.stats.rounds} rounds, ${result.stats.workers} workers, ${result.stats.requests} main-thread requests`,
    );
    for (const [key, value] of Object.entries(result.stats)) {
      if (key === 'moments') for (const [m, n] of Object.entries(value)) total.moments[m] = (total.moments[m] || 0) + n;
      else total[key] += value;
    }
  }
  console.log(`stress-workers: clean after ${((Date.now() - begun) / 1000).toFixed(0)} s: ${JSON.stringify(total)}`);
}

if (!isMainThread) {
  workerMain().catch((err) => parentPort.postMessage({ fail: String((err && err.stack) || err) }));
} else if (process.argv.includes('--batch')) {
  const batchSeed = Number(argValue('--batch')) >>> 0;
  const mode = argValue('--mode', 'mixed');
  batchMain(batchSeed, mode, Number(argValue('--rounds', '6')), Number(argValue('--until', String(Infinity)))).catch(
    (err) => {
      console.error(`batch ${batchSeed} (${mode}): ${(err && err.stack) || err}`);
      process.exit(1);
    },
  );
} else {
  parentMain();
}
