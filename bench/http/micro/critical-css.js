'use strict';
// CPU per page of the critical-CSS step alone: ssr-native's engine against beasties 0.5.4 as
// Angular runs it (classic: a new parse of HTML and CSS per page) and beasties/runtime (a plan
// compiled once, one scan a page), on a ~50 KB Bootstrap page with Bootstrap 5 + Angular
// Material's azure-blue theme (~330 KB of CSS). The plan / stylesheet is prepared once, outside
// the timing, as a server does at start-up.
//   node micro/critical-css.js <candidate> <pages>   -> JSON { msPerPage, heapDeltaKB, sink }
//   node micro/critical-css.js all [pages] [rounds]   -> every candidate in its own process,
//                                                        interleaved, with ratios to ssr-native
//   candidates: ssr-native, beasties, beasties-runtime
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const mod = (p) => path.join(root, 'node_modules', p);

function stylesheet() {
  return (
    fs.readFileSync(mod('bootstrap/dist/css/bootstrap.css'), 'utf8') +
    '\n' +
    fs.readFileSync(mod('@angular/material/prebuilt-themes/azure-blue.css'), 'utf8')
  );
}

// The page: a navbar, a 50-row table, a card and pagination, padded with more rows to
// ~50 KB, with the link Angular's build writes.
function page() {
  const rows = [];
  for (let i = 0; i < 230; i++) {
    rows.push(
      `<tr><th scope="row">${i}</th><td>Item ${i}</td><td><span class="badge text-bg-${i % 2 ? 'primary' : 'secondary'}">new</span></td>` +
        `<td><button type="button" class="btn btn-sm btn-outline-primary">Edit</button></td><td class="text-end">${(i * 7.31).toFixed(2)}</td></tr>`,
    );
  }
  return `<!DOCTYPE html><html lang="en" data-critters-container><head><meta charset="utf-8"><title>Orders</title><base href="/">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="styles.css"></head>
<body><app-root ng-version="21.0.0"><nav class="navbar navbar-expand-lg bg-body-tertiary"><div class="container-fluid"><a class="navbar-brand" href="#">Shop</a>
<button class="navbar-toggler" type="button" data-bs-toggle="collapse" aria-expanded="false"><span class="navbar-toggler-icon"></span></button>
<div class="collapse navbar-collapse" id="nav"><ul class="navbar-nav me-auto mb-2 mb-lg-0"><li class="nav-item"><a class="nav-link active" aria-current="page" href="#">Home</a></li>
<li class="nav-item dropdown"><a class="nav-link dropdown-toggle" href="#">Account</a><ul class="dropdown-menu"><li><a class="dropdown-item" href="#">Profile</a></li></ul></li></ul>
<form class="d-flex" role="search"><input class="form-control me-2" type="search" placeholder="Search"><button class="btn btn-outline-success" type="submit">Search</button></form></div></div></nav>
<main class="container my-4"><div class="row g-4"><div class="col-lg-8"><div class="table-responsive"><table class="table table-striped table-hover align-middle">
<thead class="table-light"><tr><th scope="col">#</th><th scope="col">Name</th><th scope="col">State</th><th scope="col"></th><th scope="col" class="text-end">Total</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
<nav aria-label="pages"><ul class="pagination justify-content-center"><li class="page-item disabled"><a class="page-link">Previous</a></li><li class="page-item active" aria-current="page"><a class="page-link" href="#">1</a></li><li class="page-item"><a class="page-link" href="#">2</a></li><li class="page-item"><a class="page-link" href="#">Next</a></li></ul></nav></div>
<div class="col-lg-4"><div class="card shadow-sm"><img src="x.png" class="card-img-top" alt="x"><div class="card-body"><h5 class="card-title">Summary</h5><p class="card-text">Orders this month.</p>
<a href="#" class="btn btn-primary">Details</a><button class="mdc-button mat-mdc-button mat-primary"><span class="mdc-button__label">Material</span></button></div></div></div></div></main></app-root>
<script src="main.js" type="module"></script></body></html>`;
}

async function candidateRunner(name, dir) {
  if (name === 'ssr-native') {
    const { CriticalCssEngine } = require(path.join(root, 'lib', 'critical-css', 'engine.js'));
    const engine = new CriticalCssEngine({ path: dir });
    return (html) => engine.process(html);
  }
  if (name === 'beasties') {
    const { createAngularProcessor } = require(path.join(root, 'test', 'js', 'critical-css', 'beasties-angular.js'));
    const css = fs.readFileSync(path.join(dir, 'styles.css'), 'utf8');
    const processor = await createAngularProcessor({ path: dir, readFile: () => css });
    return (html) => processor.process(html);
  }
  if (name === 'beasties-runtime') {
    const { compileSheet } = await import('beasties/compiler');
    const { createProcessor } = await import('beasties/runtime');
    const sheet = compileSheet(fs.readFileSync(path.join(dir, 'styles.css'), 'utf8'), { href: 'styles.css' });
    // Angular 22.2's AppEngine options (@angular/ssr's ssr.mjs)
    const processor = createProcessor([sheet], {
      preload: 'media-script',
      preloadFonts: true,
      noscriptFallback: true,
      inlineFonts: true,
      cache: false,
    });
    return (html) => processor.process(html);
  }
  throw new Error(`unknown candidate ${name}`);
}

async function measure(name, pages) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-bench-'));
  fs.writeFileSync(path.join(dir, 'styles.css'), stylesheet());
  const run = await candidateRunner(name, dir);
  const html = page();
  let sink = 0;
  const warm = Math.max(5, Math.ceil(pages / 5));
  for (let i = 0; i < warm; i++) sink += (await run(html)).length;
  if (global.gc) global.gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const before = process.cpuUsage();
  for (let i = 0; i < pages; i++) sink += (await run(html)).length;
  const used = process.cpuUsage(before);
  if (global.gc) global.gc();
  const heapDeltaKB = Math.round((process.memoryUsage().heapUsed - heapBefore) / 1024);
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    candidate: name,
    pageKB: Math.round(html.length / 1024),
    cssKB: Math.round(stylesheet().length / 1024),
    msPerPage: (used.user + used.system) / 1000 / pages,
    heapDeltaKB,
    sink,
  };
}

async function main() {
  const [candidate, pagesArg, roundsArg] = process.argv.slice(2);
  if (candidate !== 'all') {
    const result = await measure(candidate, Number(pagesArg || 200));
    process.stdout.write(JSON.stringify(result) + '\n');
    return;
  }
  const rounds = Number(roundsArg || 3);
  const pagesFor = { 'ssr-native': Number(pagesArg || 2000), beasties: 20, 'beasties-runtime': 200 };
  const results = {};
  for (let r = 0; r < rounds; r++) {
    for (const name of Object.keys(pagesFor)) {
      const out = spawnSync(process.execPath, ['--expose-gc', __filename, name, String(pagesFor[name])], {
        encoding: 'utf8',
      });
      if (out.status !== 0) throw new Error(out.stderr);
      const result = JSON.parse(out.stdout);
      (results[name] ||= []).push(result.msPerPage);
      process.stderr.write(
        `${name} round ${r + 1}: ${result.msPerPage.toFixed(3)} ms/page, heap ${result.heapDeltaKB} KB\n`,
      );
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const ours = median(results['ssr-native']);
  for (const [name, list] of Object.entries(results)) {
    process.stdout.write(
      `${name.padEnd(17)} ${median(list).toFixed(3).padStart(9)} ms/page  ${(median(list) / ours).toFixed(1).padStart(7)}x ssr-native\n`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
