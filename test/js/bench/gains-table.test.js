'use strict';
// scripts/gains-table.js: the README's gains table is built from one run's latest.json, every
// row from it, and a row the run lacks stops it rather than leaving the row out.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { gainsTable, ROWS } = require('../../../scripts/gains-table');

function runFolder(summary) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gains-'));
  const run = {
    date: '2026-12-03T15:20:00.000Z',
    commit: 'abc123def456',
    mode: 'quick',
    selection: 'all',
    seconds: 1200,
    machine: { cpu: 'Test CPU', cpus: 2, runtime: 'Node.js', runtimeVersion: 'v20.20.2' },
    summary,
  };
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(run));
  return dir;
}

const rowOf = ([scenario, name], i) => ({
  scenario,
  status: 'ok',
  case: name,
  measure: 'req/s',
  baseline: { name: `base ${i}`, value: 1000 + i },
  ours: { name: 'ssr-native', value: 2000 + i },
  ratio: (2000 + i) / (1000 + i),
  cpuRatio: i % 2 ? 2.5 : null,
});

test('every row comes from the one run, in ROWS order, with the run named', () => {
  const dir = runFolder([...ROWS.map(rowOf), { scenario: 'etag', status: 'ok', case: 'other', ratio: 9 }]);
  const table = gainsTable(dir);
  const lines = table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| piece') && !l.startsWith('| ---'));
  assert.equal(lines.length, ROWS.length);
  ROWS.forEach(([, , label], i) => {
    assert.ok(lines[i].startsWith(`| ${label} |`), lines[i]);
    assert.ok(lines[i].includes(`base ${i}: ${(1000 + i).toLocaleString('en-US')}`), lines[i]);
    assert.ok(lines[i].includes(`| ${((2000 + i) / (1000 + i)).toFixed(2)}x |`), lines[i]);
  });
  assert.match(table, /`npm run bench -- --all --quick` run/);
  assert.match(table, /abc123def456/);
  assert.match(table, /Test CPU, 2 vCPUs/);
  assert.match(table, /2026-12-03 15:20 UTC/);
  assert.match(gainsTable(dir, 'The machine was shared.'), /disturbs least\. The machine was shared\.\n/);
});

test('a run that did not finish gives no table', () => {
  const dir = runFolder(ROWS.map(rowOf));
  const file = path.join(dir, 'latest.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), partial: true }));
  assert.throws(() => gainsTable(dir), /did not finish/);
});

test('a row the run lacks (skipped, failed or renamed) stops the table and names it', () => {
  const rows = ROWS.map(rowOf);
  rows[3].status = 'failed';
  rows.splice(5, 1);
  const dir = runFolder(rows);
  assert.throws(
    () => gainsTable(dir),
    (err) =>
      err.message.includes(`${ROWS[3][0]} / ${ROWS[3][1]}`) && err.message.includes(`${ROWS[5][0]} / ${ROWS[5][1]}`),
  );
});
