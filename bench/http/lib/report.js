'use strict';
// Tables for the terminal and the last-run files in bench/results (JSON, Markdown, SVG).
const fs = require('fs');
const path = require('path');
const { describeSimd } = require('./cpu');

function formatTable(columns, rows) {
  const cells = [columns, ...rows.map((row) => columns.map((c) => String(row[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function markdownTable(columns, rows) {
  const esc = (s) => String(s ?? '').replace(/\|/g, '\\|');
  return [
    `| ${columns.map(esc).join(' | ')} |`,
    `| ${columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${columns.map((c) => esc(row[c])).join(' | ')} |`),
  ].join('\n');
}

// A horizontal bar chart of each table's ratio column, one group per table.
function svgChart(title, tables) {
  const bars = [];
  for (const table of tables) {
    const ratioColumn = table.columns.find((c) => c.startsWith('ratio'));
    if (!ratioColumn) continue;
    bars.push({ label: table.title, heading: true });
    for (const row of table.rows) {
      const value = Number.parseFloat(row[ratioColumn]);
      if (Number.isFinite(value)) bars.push({ label: row[table.columns[0]], value });
    }
  }
  const max = Math.max(1, ...bars.filter((b) => !b.heading).map((b) => b.value));
  const rowHeight = 22;
  const labelWidth = 330;
  const barWidth = 420;
  const height = 40 + bars.length * rowHeight;
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 80}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${esc(title)} (ratio to baseline)</text>`,
  ];
  bars.forEach((bar, i) => {
    const y = 36 + i * rowHeight;
    if (bar.heading) {
      parts.push(`<text x="8" y="${y + 14}" font-weight="bold">${esc(bar.label)}</text>`);
      return;
    }
    const w = Math.max(1, Math.round((bar.value / max) * barWidth));
    parts.push(`<text x="16" y="${y + 14}">${esc(bar.label)}</text>`);
    parts.push(
      `<rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${rowHeight - 8}" fill="${bar.value >= 1 ? '#2b8a3e' : '#c92a2a'}"/>`,
    );
    parts.push(`<text x="${labelWidth + w + 6}" y="${y + 14}">${bar.value.toFixed(2)}x</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function writeResults(dir, scenario, machine, tables, options) {
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, scenario.name);
  const when = new Date().toISOString();
  fs.writeFileSync(
    `${base}.json`,
    JSON.stringify({ scenario: scenario.name, when, machine, options, tables }, null, 2) + '\n',
  );
  const md = [
    `# ${scenario.name}`,
    '',
    scenario.question || '',
    '',
    `Run ${when} on ${machine.cpu} (${machine.cpus} CPUs), ${machine.runtime} ${machine.runtimeVersion} (load generator: Node ${machine.node}); pinning: ${machine.pinning}.`,
    `${describeSimd(machine)}.`,
    options.mode === 'smoke'
      ? 'Smoke run (--smoke): one round, the figures mean nothing.'
      : options.quick
        ? 'Quick run (--quick): short rounds, figures are indicative only.'
        : '',
    '',
    ...tables.flatMap((t) => [
      `## ${t.title}`,
      '',
      markdownTable(t.columns, t.rows),
      '',
      ...(t.notes || []).map((n) => `${n}  `),
      '',
    ]),
  ].join('\n');
  fs.writeFileSync(`${base}.md`, md);
  fs.writeFileSync(
    `${base}.svg`,
    svgChart(`${scenario.name}, ${machine.runtime} ${machine.runtimeVersion}`, tables) + '\n',
  );
}

module.exports = { formatTable, markdownTable, writeResults };
