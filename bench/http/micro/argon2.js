'use strict';
// One Argon2 implementation, one measurement, in a fresh process (so thread pools and
// memory arenas of the others do not interfere); run by scenarios/argon2.js.
// Usage: node micro/argon2.js <impl> latency <hashes>      median ms of sequential default hashes
//        node micro/argon2.js <impl> inflight-<n>[-p<lanes>] <hashes>
//                                                      hashes/s with n in flight (p=1 by default)
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

async function main() {
  const hash = load(impl);
  if (!hash)
    return {
      skipped: `${impl} is not available in ${process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.version}`}`,
    };
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
