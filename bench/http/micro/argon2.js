'use strict';
// One Argon2 implementation, one measurement, in a fresh process (so thread pools and
// memory arenas of the others do not interfere); run by scenarios/argon2.js.
// Usage: node micro/argon2.js <impl> latency <hashes>      median ms of sequential default hashes
//        node micro/argon2.js <impl> inflight-<n>[-p<lanes>] <hashes>
//                                                      hashes/s with n in flight (p=1 by default)
//        node micro/argon2.js <impl>,<impl> paired <pairs>
//                                                      one process, the two taking turns hash by
//                                                      hash (p=4 asked): each hash's wall ms and
//                                                      the process's CPU ms during it
// Prints one JSON line: { value } or { skipped: reason }.
const crypto = require('crypto');
const path = require('path');

const [impl, mode, countText] = process.argv.slice(2);
const count = Number(countText);
const root = path.join(__dirname, '..', '..', '..');

// Each returns (password, { parallelism }) -> Promise of a 32-byte tag at m=64 MiB, t=3.
function load(name) {
  const salt = crypto.randomBytes(16);
  switch (name) {
    case 'ssr-native': {
      const argon2 = require(path.join(root, 'lib', 'argon2', 'index.js'));
      argon2.configure({
        maxConcurrency: 64,
        maxQueue: 64,
        ...(process.env.ARGON2_PRIORITY ? { priority: Number(process.env.ARGON2_PRIORITY) } : {}),
      });
      return (pw, { parallelism }) => argon2.hash(pw, { salt, parallelism, raw: true });
    }
    case 'argon2': {
      const argon2 = require(require.resolve('argon2', { paths: [root] }));
      return (pw, { parallelism }) => argon2.hash(pw, { salt, parallelism, raw: true });
    }
    case '@node-rs/argon2': {
      const argon2 = require(require.resolve('@node-rs/argon2', { paths: [root] }));
      return (pw, { parallelism }) =>
        argon2.hashRaw(pw, { salt, parallelism, memoryCost: 65536, timeCost: 3, outputLen: 32, algorithm: 2 });
    }
    case 'crypto.argon2': {
      if (typeof crypto.argon2 !== 'function') return null;
      return (pw, { parallelism }) =>
        new Promise((resolve, reject) =>
          crypto.argon2(
            'argon2id',
            { message: pw, nonce: salt, parallelism, tagLength: 32, memory: 65536, passes: 3 },
            (err, tag) => (err ? reject(err) : resolve(tag)),
          ),
        );
    }
    case 'Bun.password': {
      // Bun's built-in (Bun only): PHC strings, one lane whatever p is asked (its digests say p=1)
      if (typeof Bun === 'undefined') return null;
      return (pw) => globalThis.Bun.password.hash(pw, { algorithm: 'argon2id', memoryCost: 65536, timeCost: 3 });
    }
    default:
      throw new Error(`unknown implementation ${name}`);
  }
}

// Both implementations in one process, alternating (a b, b a, a b, ...): whatever else the
// machine runs slows both alike, so the per-pair ratio holds on a loaded machine where
// back-to-back processes each see a different load. Only one hash runs at a time, so the
// process's CPU time across a hash (all threads: the pool's, Bun's) is that hash's cost.
async function paired(names, pairs) {
  const hashes = names.map(load);
  const missing = names.filter((name, i) => !hashes[i]);
  if (missing.length) return { skipped: `${missing.join(', ')} not available in ${runtimeName()}` };
  for (const hash of hashes) await hash('warm-up', { parallelism: 4 });
  const value = Object.fromEntries(names.map((name) => [name, { ms: [], cpuMs: [] }]));
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const cpu = process.cpuUsage();
      const start = process.hrtime.bigint();
      await hashes[k](`password${i}`, { parallelism: 4 });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const used = process.cpuUsage(cpu);
      value[names[k]].ms.push(ms);
      value[names[k]].cpuMs.push((used.user + used.system) / 1000);
    }
  }
  return { value };
}

function runtimeName() {
  return process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.version}`;
}

async function main() {
  if (mode === 'paired') return paired(impl.split(','), count);
  const hash = load(impl);
  if (!hash) return { skipped: `${impl} is not available in ${runtimeName()}` };
  if (mode === 'latency') {
    await hash('warm-up', { parallelism: 4 });
    const times = [];
    for (let i = 0; i < count; i++) {
      const start = process.hrtime.bigint();
      await hash(`password${i}`, { parallelism: 4 });
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { value: times[times.length >> 1] };
  }
  const [, inFlightText, lanesText] = /^inflight-(\d+)(?:-p(\d+))?$/.exec(mode);
  const inFlight = Number(inFlightText);
  const parallelism = Number(lanesText || 1);
  await Promise.all(Array.from({ length: inFlight }, (_, i) => hash(`warm-up${i}`, { parallelism })));
  let next = 0;
  const start = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) await hash(`password${next++}`, { parallelism });
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { value: count / seconds };
}

main().then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (err) => {
    process.stdout.write(JSON.stringify({ error: String(err && err.stack) }) + '\n');
    process.exit(1);
  },
);
