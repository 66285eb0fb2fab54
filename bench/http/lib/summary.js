'use strict';
// The one-page summary of a run: bench/results/latest.{json,md,svg}.
// Every table a scenario prints becomes one summary row: what is measured, the baseline's
// figure, ssr-native's, the ratio (> 1 means ssr-native is better, whatever the unit), the
// run-to-run noise of that ratio where the scenario measured it, and the best other peer.
const fs = require('fs');
const path = require('path');
const { describeSimd } = require('./cpu');
const { markdownTable } = require('./report');

const OURS = /ssr-native|\bours\b/i;

function numberOf(cell) {
  if (typeof cell === 'number') return cell;
  const value = Number.parseFloat(String(cell ?? '').replace(/,/g, ''));
  return Number.isFinite(value) ? value : null;
}

/**
 * A table's headline. Scenarios may give `table.summary` = { measure, higherIsBetter, baseline:
 * {name, value}, ours: {name, value}, peers: [{name, value, ratio}], ratio, noise }; otherwise it
 * is read off the table: the first column names the variants, the second is the measure, the
 * first `ratio...` column the ratio to the baseline (already oriented so that > 1 is better).
 */
function headlineOf(table) {
  if (table.summary) return table.summary;
  // table.headline = { measure, ours, baseline, higherIsBetter } names the column and rows when
  // the second column is not the figure to quote (floods, CPU tables).
  const hint = table.headline || {};
  const nameColumn = table.columns[0];
  const measureColumn = hint.measure || table.columns[1];
  const ratioColumn = table.columns.find((c) => c.startsWith('ratio'));
  if ((!ratioColumn && !hint.measure) || !table.rows.length) return null;
  const rows = table.rows.map((row) => ({
    name: String(row[nameColumn]),
    value: numberOf(row[measureColumn]),
    ratio: ratioColumn ? numberOf(row[ratioColumn]) : null,
  }));
  const ours = hint.ours ? rows.find((r) => r.name === hint.ours) : rows.find((r) => OURS.test(r.name));
  const baseline = hint.baseline
    ? rows.find((r) => r.name === hint.baseline)
    : rows.find((r) => r !== ours && r.ratio !== null && Math.abs(r.ratio - 1) < 0.005) || rows.find((r) => r !== ours);
  if (!ours || !baseline) return null;
  if (hint.measure) {
    const better = (r) => (hint.higherIsBetter === false ? baseline.value / r.value : r.value / baseline.value);
    for (const r of rows) r.ratio = r.value && baseline.value ? better(r) : null;
  }
  return {
    measure: measureColumn,
    baseline: { name: baseline.name, value: baseline.value },
    ours: { name: ours.name, value: ours.value },
    ratio: ours.ratio,
    noise: table.noise ?? null,
    peers: rows.filter(
      (r) => r !== ours && r !== baseline && !hint.measure && !/bare|reference|off\b|constant/i.test(r.name),
    ),
  };
}

function bestPeer(peers = []) {
  return peers.filter((p) => p.ratio !== null && p.ratio !== undefined).sort((a, b) => b.ratio - a.ratio)[0] || null;
}

/** One entry per table of every scenario that ran (and one per skipped or failed scenario). */
function summarize(scenarioResults) {
  const rows = [];
  for (const result of scenarioResults) {
    if (result.status !== 'ok') {
      rows.push({ scenario: result.name, status: result.status, reason: result.reason, question: result.question });
      continue;
    }
    for (const table of result.tables) {
      const h = headlineOf(table);
      if (!h) continue;
      rows.push({
        scenario: result.name,
        status: 'ok',
        case: table.title,
        measure: h.measure,
        baseline: h.baseline,
        ours: h.ours,
        ratio: h.ratio,
        noise: h.noise ?? null,
        cpuRatio: h.cpuRatio ?? null,
        bestPeer: bestPeer(h.peers),
        peers: h.peers || [],
      });
    }
  }
  return rows;
}

const fmtRatio = (r) => (r === null || r === undefined ? '' : `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}x`);
const fmtNoise = (n) => (n === null || n === undefined ? '' : `±${Math.round(n * 100)}%`);
const fmtValue = (v) =>
  v === null || v === undefined
    ? ''
    : Math.abs(v) >= 100
      ? Math.round(v).toLocaleString('en-US')
      : String(+v.toFixed(2));

function markdownSummary(run) {
  const columns = ['scenario', 'case', 'measure', 'baseline', 'ssr-native', 'ratio', 'noise', 'CPU ratio', 'best peer'];
  const rows = run.summary.map((s) =>
    s.status !== 'ok'
      ? { scenario: s.scenario, case: `${s.status}: ${s.reason}` }
      : {
          scenario: s.scenario,
          case: s.case,
          measure: s.measure,
          baseline: `${s.baseline.name}: ${fmtValue(s.baseline.value)}`,
          'ssr-native': fmtValue(s.ours.value),
          ratio: fmtRatio(s.ratio),
          noise: fmtNoise(s.noise),
          'CPU ratio': fmtRatio(s.cpuRatio),
          'best peer': s.bestPeer ? `${s.bestPeer.name}: ${fmtRatio(s.bestPeer.ratio)}` : '',
        },
  );
  const m = run.machine;
  return [
    '# ssr-native benchmarks: summary',
    '',
    `${run.mode} run${run.partial ? ' (interrupted or still running: the scenarios done so far)' : ''}, ${run.date}, commit ${run.commit}.`,
    `${m.cpu}, ${m.cpus} CPUs, ${m.memoryGiB} GiB, Linux ${m.kernel}; ${m.runtime} ${m.runtimeVersion}, npm ${m.npm}; pinning: ${m.pinning}.`,
    `${describeSimd(m)}.`,
    `Took ${Math.round(run.seconds)} s. Ratio: ssr-native against the baseline, > 1 is better whatever the unit; noise: half the spread of the per-round ratios;
CPU ratio (HTTP scenarios): requests per server CPU-second against the baseline, the figure other load on a shared machine disturbs least.`,
    '',
    markdownTable(columns, rows),
    '',
  ].join('\n');
}

// A horizontal bar per case: its ratio on a log axis when ratios span more than 10x, with the
// noise as a whisker and a line at 1x. Plain SVG with text, readable in any viewer.
function svgSummary(run) {
  // A ratio against a baseline that measured zero is infinite: listed in the table, not drawn.
  const bars = run.summary.filter((s) => s.status === 'ok' && Number.isFinite(s.ratio) && s.ratio > 0);
  const values = bars.map((b) => b.ratio).concat([1]);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const log = hi / lo > 10;
  const min = log ? Math.pow(10, Math.floor(Math.log10(lo))) : 0;
  const max = log ? Math.pow(10, Math.ceil(Math.log10(hi))) : Math.ceil(hi * 1.1 * 2) / 2;
  const labelWidth = 420;
  const plotWidth = 440;
  const rowHeight = 20;
  const top = 52;
  const height = top + bars.length * rowHeight + 40;
  const x = (v) =>
    labelWidth + (log ? (Math.log10(v / min) / Math.log10(max / min)) * plotWidth : (v / max) * plotWidth);
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 70}" height="${height}" font-family="sans-serif" font-size="11">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="8" y="18" font-size="14" font-weight="bold">ssr-native vs baseline, per scenario (${log ? 'log scale' : 'linear scale'}; &gt; 1x is better)</text>`,
    `<text x="8" y="34" fill="#555">${esc(`${run.mode} run ${run.date.slice(0, 10)}, ${run.machine.cpu}, ${run.machine.cpus} CPUs, ${run.machine.runtime} ${run.machine.runtimeVersion}`)}</text>`,
  ];
  const ticks = log ? [] : [];
  if (log) for (let t = min; t <= max * 1.0001; t *= 10) ticks.push(t);
  else for (let t = 0; t <= max + 1e-9; t += max > 4 ? 1 : 0.5) ticks.push(t);
  const axisY = top + bars.length * rowHeight + 4;
  for (const t of ticks) {
    parts.push(`<line x1="${x(t).toFixed(1)}" y1="${top - 4}" x2="${x(t).toFixed(1)}" y2="${axisY}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(t).toFixed(1)}" y="${axisY + 14}" text-anchor="middle" fill="#555">${t}x</text>`);
  }
  let lastScenario = null;
  bars.forEach((b, i) => {
    const y = top + i * rowHeight;
    const label = b.scenario === lastScenario ? b.case : `${b.scenario}: ${b.case}`;
    lastScenario = b.scenario;
    // Bars grow from the 1x line: right when ssr-native is better, left when it is worse.
    const end = x(Math.min(Math.max(b.ratio, log ? min : 0), max));
    const x0 = Math.min(x(1), end);
    const x1 = Math.max(x(1), end);
    parts.push(
      `<text x="${labelWidth - 6}" y="${y + 13}" text-anchor="end">${esc(label.length > 68 ? label.slice(0, 66) + '…' : label)}</text>`,
    );
    parts.push(
      `<rect x="${x0.toFixed(1)}" y="${y + 3}" width="${Math.max(1, x1 - x0).toFixed(1)}" height="${rowHeight - 7}" fill="${b.ratio >= 1 ? '#2b8a3e' : '#c92a2a'}"/>`,
    );
    let textX = x1;
    if (b.noise) {
      const a = x(Math.max(b.ratio * (1 - b.noise), log ? min : 0));
      const c = x(Math.min(b.ratio * (1 + b.noise), max));
      parts.push(`<line x1="${a.toFixed(1)}" y1="${y + 9.5}" x2="${c.toFixed(1)}" y2="${y + 9.5}" stroke="black"/>`);
      textX = Math.max(textX, c);
    }
    parts.push(
      `<text x="${(textX + 5).toFixed(1)}" y="${y + 13}">${fmtRatio(b.ratio)}${b.noise ? ` ${fmtNoise(b.noise)}` : ''}</text>`,
    );
  });
  parts.push(
    `<line x1="${x(1).toFixed(1)}" y1="${top - 6}" x2="${x(1).toFixed(1)}" y2="${axisY}" stroke="black" stroke-dasharray="3,2"/>`,
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

function writeSummary(dir, run) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(run, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), markdownSummary(run));
  fs.writeFileSync(path.join(dir, 'latest.svg'), svgSummary(run));
}

const runtimeOf = (run) => `${run.machine.runtime} ${run.machine.runtimeVersion}`;

/**
 * Rows of how `current` differs from `previous`: per scenario and case, both ratios and the
 * change, flagged when it exceeds the noise both runs measured (or 10% where none was). Runs
 * under different runtimes (--runtime) are set side by side: the columns name each runtime and
 * add ssr-native's own figure under each (its baseline may differ: Bun's built-ins under Bun).
 */
function compareRuns(previous, current) {
  const a = runtimeOf(previous);
  const b = runtimeOf(current);
  if (a !== b) return sideBySide(previous, current, a, b);
  const key = (s) => `${s.scenario}\u0000${s.case}`;
  const before = new Map(previous.summary.filter((s) => s.status === 'ok').map((s) => [key(s), s]));
  const rows = [];
  for (const s of current.summary) {
    if (s.status !== 'ok') continue;
    const old = before.get(key(s));
    if (!old) {
      rows.push({ scenario: s.scenario, case: s.case, before: '', now: fmtRatio(s.ratio), change: '', verdict: 'new' });
      continue;
    }
    const change = s.ratio / old.ratio - 1;
    const noise = old.noise !== null && s.noise !== null ? old.noise + s.noise : 0.1;
    const verdict = Math.abs(change) <= noise ? 'within noise' : change > 0 ? 'BETTER' : 'WORSE';
    rows.push({
      scenario: s.scenario,
      case: s.case,
      before: fmtRatio(old.ratio),
      now: fmtRatio(s.ratio),
      change: `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`,
      noise: `±${Math.round(noise * 100)}%`,
      verdict,
    });
  }
  return { columns: ['scenario', 'case', 'before', 'now', 'change', 'noise', 'verdict'], rows };
}

function sideBySide(previous, current, a, b) {
  const key = (s) => `${s.scenario}\u0000${s.case}`;
  const before = new Map(previous.summary.filter((s) => s.status === 'ok').map((s) => [key(s), s]));
  const seen = new Set();
  const rows = [];
  const row = (old, now) => {
    const s = now || old;
    return {
      scenario: s.scenario,
      case: s.case,
      measure: s.measure,
      [`ratio ${a}`]: old ? `${fmtRatio(old.ratio)} vs ${old.baseline.name}` : '',
      [`ratio ${b}`]: now ? `${fmtRatio(now.ratio)} vs ${now.baseline.name}` : '',
      [`ssr-native ${a}`]: old ? fmtValue(old.ours.value) : '',
      [`ssr-native ${b}`]: now ? fmtValue(now.ours.value) : '',
    };
  };
  for (const s of current.summary) {
    if (s.status !== 'ok') continue;
    seen.add(key(s));
    rows.push(row(before.get(key(s)), s));
  }
  for (const [k, old] of before) if (!seen.has(k)) rows.push(row(old, null));
  return {
    columns: ['scenario', 'case', 'measure', `ratio ${a}`, `ratio ${b}`, `ssr-native ${a}`, `ssr-native ${b}`],
    rows,
  };
}

module.exports = { headlineOf, summarize, markdownSummary, svgSummary, writeSummary, compareRuns };
