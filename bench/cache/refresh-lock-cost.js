'use strict';
// What a stale hit pays to learn that another process refreshes its key: the segment's refresh
// lock asked while another process holds it (refused: the segment's mutex and a kill(pid, 0)
// check), against a lock-free look-up of a key that is absent. Interleaved rounds, median. The
// engine asks again no sooner than 200 ms per key (lib/cache/engine.js REFRESH_ELSEWHERE_MS).
//
//   node bench/cache/refresh-lock-cost.js [calls] [rounds]     (default: 100000 5)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { SharedCache } = require('../../lib/native');
const { median } = require('../http/lib/median');

const calls = Number(process.argv[2] || 100000);
const rounds = Number(process.argv[3] || 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refresh-lock-'));
const file = path.join(dir, 'segment');
const KEY = '\u0002refresh\n/p/1\nshop.example';
const native = path.join(__dirname, '..', '..', 'lib', 'native');

const cache = new SharedCache(file, 1 << 20, 1024, false);
const holder = spawn(
  process.execPath,
  [
    '-e',
    `const { SharedCache } = require(${JSON.stringify(native)});
     const c = new SharedCache(${JSON.stringify(file)}, 1 << 20, 1024, false);
     console.log(c.lock(${JSON.stringify(KEY)}, Date.now(), 600000));
     setInterval(() => {}, 1000);`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);

function perCall(fn) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - t) / calls;
}

holder.stdout.once('data', (d) => {
  try {
    if (String(d).trim() !== 'true') throw new Error('the holder did not take the lock');
    const refused = [];
    const looked = [];
    for (let r = 0; r < rounds; r++) {
      refused.push(
        perCall(() => {
          if (cache.lock(KEY, Date.now(), 30000)) throw new Error('taken while held');
        }),
      );
      looked.push(perCall(() => cache.get('/p/1\nshop.example', 0, 0)));
    }
    console.log(`cpu ${os.cpus()[0].model}, load ${os.loadavg()[0].toFixed(1)}, ${calls} calls x ${rounds} rounds`);
    console.log(`refused refresh lock: ${median(refused).toFixed(0)} ns a call`);
    console.log(`look-up of an absent key: ${median(looked).toFixed(0)} ns a call`);
  } finally {
    holder.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
