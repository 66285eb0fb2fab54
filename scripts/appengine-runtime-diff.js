'use strict';
// Measures, and sorts by cause, how ours (beasties '0.5') differs from Angular 22.2's AppEngine,
// which runs beasties/runtime over plans compiled by beasties/compiler (not the Beasties class the
// CommonEngine and the build run):
//   node scripts/appengine-runtime-diff.js [seeds = 10]
// Run in the folder scripts/test-angular-versions.js installs Angular 22 into, it runs that
// install's beasties; elsewhere this repository's (0.5.4 both). The runtime is driven as
// @angular/ssr 22.2's AngularServerApp#inlineCriticalCss drives it (appengine-runtime.js). Pages: the handwritten edge cases, `seeds` pages over
// each corpus stylesheet, and probes of the runtime's own HTML scanner.
//
// Output format and selection are told apart by comparing the runtime's CSS with ours minified
// (`compress: true`, beasties' minifying writer, which the compiler uses too): the rules each
// kept, flattened to one item per selector inside its at-rule chain. Each item only one side
// kept is put in a class by its shape; items no class describes print as `other`. A measurement
// for docs/critical-css-differences.md, not a test: it exits 0 whatever it finds.
const fs = require('fs');
const os = require('os');
const path = require('path');
const parse5 = require('parse5');
const postcss = require('postcss');
const { CriticalCssEngine } = require('../lib/critical-css/engine');
const { loadAppEngineRuntime } = require('../test/js/critical-css/appengine-runtime');
const { CASES } = require('../test/js/critical-css/edge-case-pages');
const { stylesheets, vocabulary, generatePage, variantFor } = require('../test/js/critical-css/corpus');

const SEEDS = Number(process.argv[2] || 10);
const page = (body, head = '<link rel="stylesheet" href="styles.css">') =>
  `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

// Where the runtime's scanner (a tag stack: every end tag pops one element, no implied end tags,
// `/>` closes any element) and its token tests part from htmlparser2 and css-select.
const PROBES = [
  ['scanner: <p> not closed by <div>', '.a .b{x:1}', page('<p class="a"><div class="b">x</div>')],
  ['scanner: no implied </li>', '.a .b{x:1}', page('<ul><li class="a">x<li class="b">y</ul>')],
  ['scanner: a stray end tag pops', '.a .b{x:1}', page('<div class="a"></span><span class="b">y</span></div>')],
  ['scanner: <div/> closes', '.a .b{x:1}', page('<div class="a"/><p class="b">y</p>')],
  ['scanner: every class attribute counts', '.b{x:1}', page('<div class="a" class="b">y</div>')],
  ['tokens: attribute values case-sensitive', '[type=TEXT]{x:1}', page('<input type="text">')],
  [
    'links: found in a comment',
    '.a{x:1}',
    page('<p class="a">x</p><!-- <link rel="stylesheet" href="styles.css"> -->'),
  ],
  ['statement at-rule: ; appended', '@page{margin:0}.a{x:1}', page('<p class="a">x</p>')],
];

function styles(node, out = []) {
  if (node.nodeName === 'style') out.push((node.childNodes || []).map((c) => c.value || '').join(''));
  for (const child of node.childNodes || []) styles(child, out);
  if (node.content) styles(node.content, out);
  return out;
}

// One item per selector of each rule (with its at-rule chain), one per other leaf at-rule.
function items(css) {
  let root;
  try {
    root = postcss.parse(css);
  } catch {
    return [`<unparseable>${css}`];
  }
  const out = [];
  const walk = (container, chain) => {
    for (const node of container.nodes || []) {
      if (node.type === 'rule') {
        const body = node.nodes.map(String).join(';');
        for (const sel of node.selectors) out.push(`${chain}${sel}{${body}}`);
      } else if (node.type === 'atrule') {
        const nested = node.nodes?.some((n) => n.type === 'rule' || n.type === 'atrule');
        if (nested && !/keyframes$/i.test(node.name)) walk(node, `${chain}@${node.name} ${node.params}>`);
        else out.push(`${chain}${String(node)}`);
      }
    }
  };
  walk(root, '');
  return out;
}

function minus(a, b) {
  const left = new Map();
  for (const x of b) left.set(x, (left.get(x) || 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) || 0;
    if (n === 0) return true;
    left.set(x, n - 1);
    return false;
  });
}

function runtimeOnly(item) {
  if (/^@(charset|import|namespace)\b/i.test(item))
    return 'statement at-rules (@charset, @import, @namespace): the runtime always keeps them';
  if (/[{;]\s*&|\{[^{}]*&[^{}]*\{/.test(item))
    return 'a rule with nested rules (CSS nesting): the runtime keeps it whole';
  if (/^[^{]+\{\}$/.test(item)) return 'an empty rule: the runtime keeps it';
  if (/\|/.test(item.split('{')[0])) return 'a namespaced selector: the runtime ignores the prefix';
  if (/[A-Z]/.test(item.split('{')[0].replace(/\[[^\]]*\]|\.[\w-]+|#[\w-]+/g, '')))
    return 'a camelCase tag: the runtime lowercases selector tags';
  if (/^\[[^\]]+\]\{/.test(item)) return 'an attribute selector on <html>: the runtime matches the root element';
  return 'other';
}

function oursOnly(item) {
  if (/^@-webkit-keyframes/i.test(item)) return '@-webkit-keyframes: the runtime keeps it only when its name is used';
  if (/script/.test(item.split('{')[0]))
    return "a selector matching beasties' own loader <script> (classic matches after inserting it)";
  if (/^@layer [^{]*\{\s*\}$/.test(item))
    return 'an empty @layer block (classic keeps it once its nested rules are dropped)';
  if (item.startsWith('<unparseable>'))
    return "a stray } in the source (classic's writer keeps it; the runtime writes rule by rule)";
  return 'other';
}

async function main() {
  console.warn = () => {};
  const { process: runtime } = await loadAppEngineRuntime();

  const pages = CASES.map((c) => ({ what: `edge case "${c.name}"`, css: c.css, html: c.html }));
  for (const sheet of stylesheets()) {
    const vocab = vocabulary(sheet.css);
    for (let seed = 1; seed <= SEEDS; seed++) {
      pages.push({
        what: `${sheet.name} seed ${seed}`,
        css: sheet.css,
        html: generatePage(vocab, seed, variantFor(seed)),
      });
    }
  }
  for (const [name, css, html] of PROBES) pages.push({ what: `probe "${name}"`, css, html });

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'appengine-runtime-diff-'));
  const classes = new Map();
  const count = (kind, what, detail = what) => {
    if (!classes.has(kind)) classes.set(kind, { pages: new Set(), items: 0, details: [] });
    const c = classes.get(kind);
    c.pages.add(what);
    if (c.details.length < (kind.endsWith('other') ? 12 : 1)) c.details.push(detail);
    c.items++;
  };
  const bytes = { ours: 0, oursMinified: 0, runtime: 0 };
  let identical = 0;
  let sameRules = 0;
  try {
    pages.forEach((p, i) => {
      const dir = path.join(work, `app${i}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'styles.css'), p.css);
      const ours = new CriticalCssEngine({ path: dir, beasties: '0.5' }).process(p.html);
      const oursMin = new CriticalCssEngine({ path: dir, beasties: '0.5', compress: true }).process(p.html);
      const theirs = runtime(p.css, p.html);
      if (ours === theirs) identical++;
      const sOurs = styles(parse5.parse(ours));
      const cssMin = styles(parse5.parse(oursMin)).join('');
      const sTheirs = styles(parse5.parse(theirs));
      const cssTheirs = sTheirs.join('');
      bytes.ours += sOurs.join('').length;
      bytes.oursMinified += cssMin.length;
      bytes.runtime += cssTheirs.length;

      // output format
      if (/<html[^>]*data-beasties-container/i.test(ours) && !/<html[^>]*data-beasties-container/i.test(theirs)) {
        count('format: ours writes data-beasties-container on <html>, the runtime never does', p.what);
      }
      if (sOurs.length > 1 && sTheirs.length === 1)
        count('format: one <style> per linked sheet vs one for all', p.what);
      if (sOurs.join('') !== cssMin) count('format: the runtime always minifies (the CommonEngine never does)', p.what);
      if (/<link rel="preload" as="font"/.test(theirs) && !/<link rel="preload" as="font"/.test(ours)) {
        count('format: <link rel="preload" as="font" crossorigin="anonymous"> for critical faces', p.what);
      }
      const rest = (h) =>
        parse5.serialize(
          parse5.parse(
            h
              .replace(/<style[^>]*>[\s\S]*?<\/style>/g, '')
              .replace(/<link rel="preload" as="font"[^>]*>/g, '')
              .replace(/ data-beasties-container(="")?/g, ''),
          ),
        );
      if (rest(ours) !== rest(theirs)) {
        count('format: the rest of the page (links, noscript, loader script) differs', p.what);
      }

      // selection
      const a = items(cssMin);
      const b = items(cssTheirs);
      const onlyOurs = minus(a, b);
      const onlyTheirs = minus(b, a);
      if (onlyOurs.length === 0 && onlyTheirs.length === 0) {
        sameRules++;
        if (cssMin !== cssTheirs) count('format: same rules, other text (a statement at-rule gets ";")', p.what);
      }
      for (const item of onlyTheirs)
        count(`selection, runtime only: ${runtimeOnly(item)}`, p.what, `${p.what}: ${item.slice(0, 100)}`);
      for (const item of onlyOurs)
        count(`selection, ours only: ${oursOnly(item)}`, p.what, `${p.what}: ${item.slice(0, 100)}`);
    });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `${pages.length} pages: ${identical} identical to the runtime's, ${sameRules} keep the same rules as ours ` +
      `minified; inlined ${bytes.ours} bytes (ours), ${bytes.oursMinified} (ours minified), ${bytes.runtime} (runtime)`,
  );
  for (const [kind, c] of [...classes].sort()) {
    console.log(`${String(c.pages.size).padStart(4)} pages ${String(c.items).padStart(4)} items  ${kind}`);
    for (const detail of c.details) console.log(`      ${detail}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
