'use strict';
// The benchmark runner prints the same tables under Bun as under Node: every table's column
// header line, rule line and rows, its Markdown tables, the run summary and the comparison of two
// runs (seeded random columns and cells with units, '%', '|' and non-ASCII text), rendered by
// test/fixtures/bench-tables/render.js under this Node and under the Bun binary that
// scripts/runtimes.js caches (skipped, saying so, when it is not installed). Also the runner
// itself: `run.js --compare a --with b` under both prints the same comparison table.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { RUNTIMES, cacheDir } = require('../../../scripts/runtimes');

const root = path.join(__dirname, '..', '..', '..');
const RENDER = path.join(root, 'test', 'fixtures', 'bench-tables', 'render.js');
const bun = path.join(cacheDir(), 'bun', RUNTIMES.bun.bin);
const noBun = fs.existsSync(bun)
  ? false
  : `no cached Bun at ${bun} (install it with: node scripts/runtimes.js --install-only bun)`;

function run(bin, args) {
  const out = spawnSync(bin, args, { cwd: root, encoding: 'utf8', timeout: 60000 });
  assert.equal(out.status, 0, `${bin} ${args.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
}

// The lines that differ between two outputs, for the failure message.
function firstDifference(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}:\n  node: ${JSON.stringify(x[i])}\n  bun:  ${JSON.stringify(y[i])}`;
  }
  return 'none';
}

for (const seed of [1, 2, 3, 20261201]) {
  test(`bench tables: Bun renders what Node renders (seed ${seed})`, { skip: noBun }, () => {
    const node = run(process.execPath, [RENDER, String(seed)]);
    const fromBun = run(bun, [RENDER, String(seed)]);
    // a header line above every rule line, under both runtimes
    const lines = node.split('\n');
    lines.forEach((line, i) => {
      if (/^-+( {2}-+)+$/.test(line))
        assert.ok(lines[i - 1] && lines[i - 1].trim(), `seed ${seed}: no header line above line ${i + 1}`);
    });
    assert.ok(node === fromBun, `seed ${seed}: outputs differ at ${firstDifference(node, fromBun)}`);
  });
}

test('bench runner: `--compare a --with b` prints the same table under Bun and Node', { skip: noBun }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-tables-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const machine = { cpu: 'x', cpus: 2, runtime: 'Node.js', runtimeVersion: 'v20.20.2' };
  const row = (ratio) => ({
    scenario: 'etag',
    status: 'ok',
    case: '75 KB Buffer',
    measure: 'ns/call',
    baseline: { name: 'SHA-1', value: 5 },
    ours: { name: 'ssr-native', value: 1 },
    ratio,
    noise: 0.05,
  });
  const a = path.join(dir, 'a.json');
  const b = path.join(dir, 'b.json');
  fs.writeFileSync(a, JSON.stringify({ date: 'd', commit: 'c', mode: 'quick', machine, summary: [row(20)] }));
  fs.writeFileSync(b, JSON.stringify({ date: 'd', commit: 'c', mode: 'quick', machine, summary: [row(30)] }));
  const args = [path.join(root, 'bench', 'http', 'run.js'), '--compare', a, '--with', b];
  const node = run(process.execPath, args);
  assert.match(node, /^scenario +case +before +now +change +noise +verdict$/m, 'the header line of the comparison');
  const fromBun = run(bun, args);
  assert.ok(node === fromBun, `outputs differ at ${firstDifference(node, fromBun)}`);
});
