'use strict';
// The README's "Measured gains" table, from one run's results folder: every row comes from the
// same `latest.json` (one run, one machine, one commit), never a mix of runs.
//
//   npm run bench -- --all --quick [--results=<dir>]     (CI's quiet run does this)
//   node scripts/gains-table.js [<results dir>]          prints the table (default: bench/results)
//   node scripts/gains-table.js [<results dir>] --write  replaces it in README.md
//   --note="<text>"                                      adds a sentence about the run (e.g. the
//                                                        machine was shared with other jobs)
//
// The rows are each piece's case named in ROWS; a row the run does not have (a scenario skipped
// or failed, a case renamed) stops the script with the cases the run has, so the table never
// quietly loses a row.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const README = path.join(ROOT, 'README.md');
const START = '<!-- gains-table: scripts/gains-table.js writes from here -->';
const END = '<!-- gains-table: to here -->';

// [scenario, case, what the row shows] in the README's order
const ROWS = [
  ['etag', '75 KB Buffer', 'etag, 75 KB Buffer'],
  [
    'content-type',
    "Express setCharset: parse(type), parameters.charset = 'utf-8', format()",
    'content-type, Express setCharset',
  ],
  ['express-etag', '75 KB page, GET /', 'Express ETag, 75 KB page'],
  ['express-static', '64 KB file, GET /64kb.js', 'Express static, 64 KB file'],
  [
    'express-register',
    'express.static 16 KB stylesheet, GET /styles.css',
    '`-r ssr-native/register`, express.static 16 KB',
  ],
  ['koa-static', '1 KB file, GET /1kb.js', 'Koa static, 1 KB file'],
  ['fastify-static', '1 KB file, GET /1kb.js', 'Fastify static, 1 KB file'],
  ['hono-static', '1 KB file, GET /1kb.js', 'Hono static, 1 KB file'],
  ['compression', 'Express 5.3, repeated 75 KB page, GET /page', 'compression, Express, repeated 75 KB page'],
  // (a quick run measures compression on Express only)
  [
    'compression',
    'Express 5.3, unique 75 KB pages (every body differs), GET /unique',
    'compression, Express, unique 75 KB pages',
  ],
  ['ssr-cache', 'warm hits, GET /page/1', 'response cache, warm hits'],
  ['argon2', '4 in flight, p=4 (defaults): throughput', 'argon2, 4 in flight (defaults)'],
];

function format(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '';
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : String(Number(value.toPrecision(3)));
}

const ratio = (value) => (typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(2)}x` : '');

/** The command that made `run` (its selection of scenarios and its mode). */
function commandOf(run) {
  const args = [];
  if (run.selection === 'all') args.push('--all');
  else if (run.selection === 'headline') args.push('--headline');
  else if (run.selection === 'named') args.push(...run.scenarios.map((scenario) => scenario.name));
  if (run.mode !== 'default') args.push(`--${run.mode}`);
  return `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

/** The table (intro line + Markdown rows) for the run in `dir`. */
function gainsTable(dir, note) {
  const file = path.join(dir, 'latest.json');
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (run.partial) throw new Error(`gains-table: ${file} is a run that did not finish`);
  const lines = [];
  const missing = [];
  for (const [scenario, name, label] of ROWS) {
    const row = run.summary.find((r) => r.scenario === scenario && r.case === name && r.status === 'ok');
    if (row === undefined) {
      const has = run.summary.filter((r) => r.scenario === scenario).map((r) => `  ${r.case} (${r.status})`);
      missing.push(`${scenario} / ${name}: not in ${file}${has.length ? `; it has:\n${has.join('\n')}` : ''}`);
      continue;
    }
    lines.push(
      `| ${label} | ${row.measure} | ${row.baseline.name}: ${format(row.baseline.value)} | ` +
        `${format(row.ours.value)} | ${ratio(row.ratio)} | ${ratio(row.cpuRatio)} |`,
    );
  }
  if (missing.length) throw new Error(`gains-table: rows missing from the run:\n${missing.join('\n')}`);
  const m = run.machine;
  const when = run.date.slice(0, 16).replace('T', ' ');
  const intro =
    `From one \`${commandOf(run)}\` run ` +
    `(${when} UTC, commit \`${run.commit}\`, ${m.cpu}, ${m.cpus} vCPUs, ${m.runtime} ${m.runtimeVersion}; ` +
    `${run.mode} mode, ${Math.round(run.seconds / 60)} minutes), every row from that run: ` +
    '`node scripts/gains-table.js <results dir>` builds this table. Ratio: ours over the baseline ' +
    '(speed-up for times); CPU ratio: requests per server CPU-second, the figure a shared machine ' +
    'disturbs least.' +
    (note ? ` ${note}` : '');
  return [
    intro,
    '',
    '| piece, case | measure | baseline | ssr-native | ratio | CPU ratio |',
    '| --- | --- | --- | ---: | ---: | ---: |',
    ...lines,
  ].join('\n');
}

function main() {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const dir = path.resolve(args.find((a) => !a.startsWith('--')) || path.join(ROOT, 'bench', 'results'));
  const noteArg = args.find((a) => a.startsWith('--note='));
  const table = gainsTable(dir, noteArg && noteArg.slice('--note='.length));
  if (!write) {
    console.log(table);
    return;
  }
  const text = fs.readFileSync(README, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from === -1 || to < from) throw new Error(`gains-table: README.md has no ${START} ... ${END} block`);
  fs.writeFileSync(README, text.slice(0, from + START.length) + '\n' + table + '\n\n' + text.slice(to));
  console.log(`README.md: gains table from ${path.relative(ROOT, dir) || '.'}/latest.json`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err.message);
    process.exitCode = 1;
  }
}

module.exports = { gainsTable, ROWS };
