'use strict';
// CPU per call of the static middleware for a URL path that falls through to next() (an API
// route behind it), called directly (no HTTP: the machine's noise stays out), options as a
// generated Angular server's. Candidates interleaved per round; process CPU (all threads, so
// the libuv pool's stat/open work counts too).
// Usage: node bench/http/micro/static-fallthrough.js [calls per round] [baseline lib/ dir]
//   (a baseline lib/, e.g. an older checkout's, adds its serveStatic as "ssr-native, baseline")
const fs = require('fs');
const os = require('os');
const path = require('path');

const calls = Number(process.argv[2]) || 5000;
const baselineLib = process.argv[3];
const rounds = 5;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-fallthrough-'));
fs.writeFileSync(path.join(root, 'main.js'), 'export {};\n');
const options = { maxAge: '1y', index: false, redirect: false };
const candidates = {
  'serve-static 2.2.1': require('serve-static')(root, options),
  'ssr-native serveStatic': require('../../../lib/express/serve-static')(root, options),
};
if (baselineLib) candidates['ssr-native, baseline'] = require(path.resolve(baselineLib, 'serve-static'))(root, options);

function once(mw, url) {
  return new Promise((resolve) => mw({ method: 'GET', url, originalUrl: url, headers: { host: 'x' } }, {}, resolve));
}

(async () => {
  const samples = {};
  for (const [name, mw] of Object.entries(candidates)) {
    for (let i = 0; i < 500; i++) await once(mw, '/api/users');
    samples[name] = [];
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, mw] of Object.entries(candidates)) {
      const before = process.cpuUsage();
      for (let i = 0; i < calls; i++) await once(mw, '/api/users');
      const used = process.cpuUsage(before);
      samples[name].push((used.user + used.system) / calls);
    }
  }
  for (const [name, values] of Object.entries(samples)) {
    values.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(24)} ${values[rounds >> 1].toFixed(2)} us CPU/call (median of ${rounds}; min ${values[0].toFixed(2)}, max ${values[rounds - 1].toFixed(2)})`,
    );
  }
  for (const mw of Object.values(candidates)) if (mw.close) mw.close();
  fs.rmSync(root, { recursive: true, force: true });
})();
