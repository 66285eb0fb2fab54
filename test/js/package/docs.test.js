'use strict';
// Every ```js block in README.md and docs/*.md is a complete program that runs as pasted: each
// is written to a file inside the package (so require('ssr-native') resolves to this checkout),
// started with PORT set to a free port, and must either listen there and answer each of its
// `// try: METHOD /path [JSON body]` requests (GET / when it names none) with a status below
// 400, or exit with status 0. `// node-args: ...` adds node options (e.g. -r ssr-native/register).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { request } = require('../helpers/http');
const { freePort, accepts } = require('../../../bench/http/lib/ports');

const root = path.join(__dirname, '..', '..', '..');
// one folder per run (inside the package, so require('ssr-native') resolves here), removed after
const scratch = path.join(root, 'build', `doc-test-${process.pid}`);
const START_MS = 15000;

function blocks() {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/^```js\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ where: `${file}:${line}`, code: m[1] });
    }
  }
  return out;
}

// Listens (true) or exits ({ code, output }), whichever comes first; null after START_MS.
async function started(child, port, output) {
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let done = null;
  exited.then((r) => (done = r));
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    if (done) return { ...done, output: output() };
    if (await accepts(port)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

const all = blocks();
test('the docs have js blocks to run', () => assert.ok(all.length >= 5, `${all.length} blocks`));

fs.mkdirSync(scratch, { recursive: true });
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
for (const [n, block] of all.entries()) {
  test(`${block.where} runs as pasted`, { timeout: 60000 }, async () => {
    const tries = [...block.code.matchAll(/^\/\/ try: (GET|POST|HEAD) (\S+)(?: (.+))?$/gm)].map((m) => ({
      method: m[1],
      path: m[2],
      body: m[3],
    }));
    const nodeArgs = (/^\/\/ node-args: (.+)$/m.exec(block.code)?.[1] || '').split(' ').filter(Boolean);
    const file = path.join(scratch, `block-${n}.js`);
    fs.writeFileSync(file, block.code);
    const port = await freePort();
    const child = spawn(process.execPath, [...nodeArgs, file], {
      cwd: scratch,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    try {
      const state = await started(child, port, () => out);
      assert.ok(state !== null, `${block.where}: neither listened on PORT nor exited within ${START_MS} ms\n${out}`);
      if (state !== true) {
        assert.equal(tries.length, 0, `${block.where}: exited before listening (${state.code})\n${out}`);
        assert.equal(state.code, 0, `${block.where}: exited with ${state.code}\n${out}`);
        return;
      }
      for (const t of tries.length ? tries : [{ method: 'GET', path: '/' }]) {
        const headers = t.body ? { 'content-type': 'application/json' } : {};
        const res = await request(`http://127.0.0.1:${port}${t.path}`, { method: t.method, headers, body: t.body });
        assert.ok(
          res.status < (tries.length ? 400 : 500),
          `${block.where}: ${t.method} ${t.path} answered ${res.status}: ${res.body}\n${out}`,
        );
      }
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(file, { force: true });
    }
  });
}
