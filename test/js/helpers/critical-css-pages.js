'use strict';
// The stylesheet and pages of the critical-CSS tests and benchmark: Bootstrap 5 and Angular
// Material's azure-blue prebuilt theme as one global stylesheet (what Angular's build makes of
// "styles": [bootstrap.css, azure-blue.css]), and a Bootstrap page of the fixture's kind (navbar,
// a table of `rows` rows, a card, pagination) rendered for one user, linking it as Angular does.
const fs = require('fs');
const os = require('os');
const path = require('path');

const STYLESHEET = 'styles-5INURTSO.css';

function stylesheetText() {
  const bootstrap = fs.readFileSync(require.resolve('bootstrap/dist/css/bootstrap.css'), 'utf8');
  const material = fs.readFileSync(
    path.join(path.dirname(require.resolve('@angular/material/package.json')), 'prebuilt-themes', 'azure-blue.css'),
    'utf8',
  );
  return `${bootstrap}\n${material}\n`;
}

/** A temporary browser dist folder holding the stylesheet; { dir, stylesheet, remove() }. */
function makeDistFolder(css = stylesheetText()) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-critical-css-'));
  fs.writeFileSync(path.join(dir, STYLESHEET), css);
  return {
    dir,
    stylesheet: path.join(dir, STYLESHEET),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function escapeText(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The page for `user` with `rows` table rows (50 rows: about 25 KB; 100: about 50 KB). */
function bootstrapPage(user, rows = 50) {
  const name = escapeText(user);
  const body = [];
  for (let i = 1; i <= rows; i++) {
    const state = i % 3 === 0 ? 'text-bg-success' : i % 3 === 1 ? 'text-bg-warning' : 'text-bg-secondary';
    body.push(
      `<tr><th scope="row">${i}</th><td>${name} order ${i}</td><td class="text-end">${(i * 17.25).toFixed(2)}</td>` +
        `<td><span class="badge ${state}">${i % 3 === 0 ? 'paid' : 'open'}</span></td>` +
        `<td><button type="button" class="btn btn-sm btn-outline-primary">View</button></td></tr>`,
    );
  }
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Orders</title>' +
    '<base href="/"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<link rel="stylesheet" href="${STYLESHEET}"></head>` +
    '<body class="mat-typography"><app-root ng-version="21.2.24" ngh="0" ng-server-context="ssr">' +
    '<nav class="navbar navbar-expand-lg bg-body-tertiary"><div class="container-fluid">' +
    '<a class="navbar-brand" href="/">Shop</a><button class="navbar-toggler" type="button" aria-label="Toggle">' +
    '<span class="navbar-toggler-icon"></span></button><div class="collapse navbar-collapse" id="nav">' +
    '<ul class="navbar-nav me-auto mb-2 mb-lg-0"><li class="nav-item"><a class="nav-link active" aria-current="page" href="/orders">Orders</a></li>' +
    `<li class="nav-item"><a class="nav-link" href="/account">${name}</a></li></ul></div></div></nav>` +
    '<main class="container my-4"><div class="row"><div class="col-md-8">' +
    `<h1 class="h3 mb-3">Orders of ${name}</h1><table class="table table-striped table-hover align-middle">` +
    '<thead class="table-light"><tr><th scope="col">#</th><th scope="col">Item</th><th scope="col" class="text-end">Total</th>' +
    '<th scope="col">State</th><th scope="col"></th></tr></thead>' +
    `<tbody>${body.join('')}</tbody></table>` +
    '<nav aria-label="Pages"><ul class="pagination justify-content-center"><li class="page-item disabled"><a class="page-link">Previous</a></li>' +
    '<li class="page-item active" aria-current="page"><a class="page-link" href="?page=1">1</a></li>' +
    '<li class="page-item"><a class="page-link" href="?page=2">2</a></li><li class="page-item"><a class="page-link" href="?page=2">Next</a></li></ul></nav>' +
    '</div><div class="col-md-4"><div class="card shadow-sm"><div class="card-body">' +
    `<h5 class="card-title">${name}</h5><p class="card-text text-body-secondary">${rows} orders</p>` +
    '<a href="/account" class="btn btn-primary">Account</a></div></div></div></div></main>' +
    '</app-root><script src="main-XK3NWJ2R.js" type="module"></script></body></html>'
  );
}

module.exports = { STYLESHEET, stylesheetText, makeDistFolder, bootstrapPage };
