'use strict';
// How many file-system system calls does one static-file request make once the server is warm?
// Each server runs under `strace -f -y` (every thread, file descriptors shown with their paths);
// after a warm-up, N keep-alive GETs are sent and the trace lines of that window that name the
// served tree (path arguments or descriptors open on it) are counted.
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const SERVER = path.join(__dirname, '..', 'servers', 'static.js');
const KOA_SERVER = path.join(__dirname, '..', 'servers', 'koa-static.js');
const { serverRuntime } = require('../lib/runtime');
const TRACED = 'trace=%file,%desc,%memory';

function haveStrace() {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

function makeTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-syscalls-'));
  fs.writeFileSync(path.join(root, '1kb.js'), 'x'.repeat(1024));
  fs.writeFileSync(path.join(root, '64kb.js'), 'y'.repeat(64 * 1024));
  return root;
}

function startTraced(env, traceFile, script = SERVER) {
  return new Promise((resolve, reject) => {
    const child = spawn('strace', ['-f', '-qq', '-y', '-e', TRACED, '-o', traceFile, serverRuntime().bin, script], {
      env: { ...process.env, PORT: '0', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error('traced server did not start')), 30000);
    child.on('exit', (code) => reject(new Error(`traced server exited (${code})`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/READY (\d+)/);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, port: Number(m[1]) });
      }
    });
  });
}

async function requests(port, urlPath, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < count; i++) {
    await new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  }
  agent.destroy();
}

const settle = () => new Promise((r) => setTimeout(r, 300));

async function measure(impl, framework, urlPath, n, root) {
  const traceFile = path.join(os.tmpdir(), `ssr-native-strace-${process.pid}-${impl}.txt`);
  const { child, port } =
    framework === 'koa'
      ? await startTraced({ KOA_STATIC_IMPL: impl, STATIC_ROOT: root }, traceFile, KOA_SERVER)
      : await startTraced({ STATIC_IMPL: impl, STATIC_FRAMEWORK: framework, STATIC_ROOT: root }, traceFile);
  try {
    await requests(port, urlPath, 50); // warm-up: the first request loads the cache
    await settle();
    const start = fs.statSync(traceFile).size;
    await requests(port, urlPath, n);
    await settle();
    const window = fs.readFileSync(traceFile, 'utf8').slice(start).split('\n');
    // an interrupted call appears twice ("<unfinished ...>" then "<... x resumed>"): count it once
    const onTree = window.filter((line) => line.includes(root) && !line.includes(' resumed>'));
    const byCall = {};
    for (const line of onTree) {
      const call = (line.match(/^\d+\s+(\w+)\(/) || [])[1] || '?';
      byCall[call] = (byCall[call] || 0) + 1;
    }
    return { perRequest: onTree.length / n, byCall, traced: window.filter(Boolean).length / n };
  } finally {
    // Stop the traced server itself (strace on SIGTERM would detach and keep waiting).
    const exited = new Promise((r) => child.once('exit', r));
    const tracee = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0];
    if (tracee) process.kill(Number(tracee), 'SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    await exited;
    fs.rmSync(traceFile, { force: true });
  }
}

module.exports = {
  name: 'static-syscalls',
  order: 32,
  question:
    'File-system system calls per request for a warm static file: serve-static 2.2.1 vs ssr-native serveStatic (node:http), koa-static 5 vs ssr-native/koa serve() (Koa 3) (strace).',
  async run({ pick, log }) {
    if (!haveStrace()) {
      return {
        tables: [{ title: 'skipped', columns: ['note'], rows: [{ note: 'strace is not installed' }], notes: [] }],
      };
    }
    const n = pick(200, 300, 1000);
    const root = makeTree();
    const rows = [];
    try {
      for (const urlPath of ['/1kb.js', '/64kb.js']) {
        for (const [name, impl, framework] of [
          ['serve-static 2.2.1', 'serve-static', 'http'],
          ['ssr-native serveStatic', 'ssr-native', 'http'],
          ['Koa 3 + koa-static 5', 'koa-static', 'koa'],
          ['Koa 3 + ssr-native/koa serve()', 'ssr-native', 'koa'],
        ]) {
          const r = await measure(impl, framework, urlPath, n, root);
          log(`  ${name} ${urlPath}: ${r.perRequest.toFixed(2)} fs syscalls/request ${JSON.stringify(r.byCall)}`);
          rows.push({
            variant: name,
            file: urlPath,
            'fs syscalls/request': r.perRequest.toFixed(2),
            'which (total in window)':
              Object.entries(r.byCall)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ') || '-',
            'fd/memory syscalls traced/request': r.traced.toFixed(1),
          });
        }
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
    return {
      tables: [
        {
          title: `warm file, node:http and Koa 3, ${n} keep-alive GETs`,
          columns: [
            'variant',
            'file',
            'fs syscalls/request',
            'which (total in window)',
            'fd/memory syscalls traced/request',
          ],
          rows,
          notes: [
            `strace -f -y -e ${TRACED}; a call counts when its path argument or descriptor is in the served tree.`,
            'The last column counts every traced call (sockets, epoll, mmap... included) for context.',
          ],
        },
      ],
    };
  },
};
