'use strict';
// A seeded corpus for the critical-CSS differential tests: stylesheets from npm packages (and a
// generated Tailwind-shaped one), and pages generated from each stylesheet's own vocabulary
// (its classes, ids, tags and attributes), so that a good share of the rules match.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const mod = (p) => path.join(root, 'node_modules', p);

// xorshift32: small, seeded, the same on every machine.
function rng(seed) {
  let x = (Math.imul(seed >>> 0, 2654435761) ^ 0x5bd1e995) >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[Math.floor(next() * list.length)];
  next.chance = (p) => next() < p;
  for (let i = 0; i < 8; i++) next();
  return next;
}

// A stylesheet in the shape Tailwind CSS (v3 / v4) builds: @layer, :where(), escaped class
// names, variants in @media, custom properties, @property, @keyframes used by animate-*.
function tailwindLike() {
  const parts = [];
  parts.push('/*! tailwindcss v4-like build for tests */');
  parts.push('@layer theme, base, components, utilities;');
  parts.push(
    '@layer theme {\n  :root, :host {\n    --color-red-500: oklch(63.7% 0.237 25.331);\n    --spacing: 0.25rem;\n    --font-sans: ui-sans-serif, system-ui, sans-serif;\n  }\n}',
  );
  parts.push(
    '@layer base {\n  *, ::after, ::before {\n    box-sizing: border-box;\n    margin: 0;\n  }\n  html, :host {\n    line-height: 1.5;\n    font-family: var(--font-sans);\n  }\n  h1, h2, h3 {\n    font-size: inherit;\n  }\n  [hidden]:where(:not([hidden="until-found"])) {\n    display: none !important;\n  }\n}',
  );
  const utilities = [];
  const sizes = ['0', '1', '2', '4', '8', '1\\/2', '1\\.5', 'full', 'px'];
  for (const s of sizes) {
    utilities.push(`.w-${s} {\n    width: calc(var(--spacing) * 4);\n  }`);
    utilities.push(`.p-${s} {\n    padding: calc(var(--spacing) * 2);\n  }`);
  }
  for (const c of ['red-500', 'blue-600', 'white', 'black']) {
    utilities.push(`.bg-${c} {\n    background-color: var(--color-red-500);\n  }`);
    utilities.push(
      `.hover\\:bg-${c} {\n    &:hover {\n      @media (hover: hover) {\n        background-color: var(--color-red-500);\n      }\n    }\n  }`,
    );
    utilities.push(`.text-${c} {\n    color: var(--color-red-500);\n  }`);
  }
  utilities.push('.flex {\n    display: flex;\n  }');
  utilities.push('.hidden {\n    display: none;\n  }');
  utilities.push('.space-x-4 {\n    :where(& > :not(:last-child)) {\n      margin-inline-end: 1rem;\n    }\n  }');
  utilities.push('.space-y-2 > :not([hidden]) ~ :not([hidden]) {\n    margin-top: 0.5rem;\n  }');
  utilities.push('.animate-spin {\n    animation: var(--animate-spin);\n  }');
  utilities.push('.animate-ping {\n    animation: ping 1s cubic-bezier(0, 0, 0.2, 1) infinite;\n  }');
  utilities.push('.font-mono {\n    font-family: "Fira Code", monospace;\n  }');
  utilities.push('.group:hover .group-hover\\:underline {\n    text-decoration-line: underline;\n  }');
  utilities.push('.peer:checked ~ .peer-checked\\:block {\n    display: block;\n  }');
  utilities.push('.\\[mask-type\\:luminance\\] {\n    mask-type: luminance;\n  }');
  utilities.push('.data-\\[state\\=open\\]\\:flex[data-state="open"] {\n    display: flex;\n  }');
  utilities.push('.aria-disabled\\:opacity-50[aria-disabled="true"] {\n    opacity: 0.5;\n  }');
  utilities.push('.dark\\:bg-black:where(.dark, .dark *) {\n    background-color: #000;\n  }');
  parts.push(`@layer utilities {\n  ${utilities.join('\n  ')}\n}`);
  parts.push(
    '@media (min-width: 48rem) {\n  .md\\:flex {\n    display: flex;\n  }\n  .md\\:hidden {\n    display: none;\n  }\n}',
  );
  parts.push(
    '@supports (color: color-mix(in lab, red, red)) {\n  .bg-red-500\\/50 {\n    background-color: color-mix(in oklab, var(--color-red-500) 50%, transparent);\n  }\n}',
  );
  parts.push('@property --tw-space-x-reverse {\n  syntax: "*";\n  inherits: false;\n  initial-value: 0;\n}');
  parts.push('@keyframes spin {\n  to {\n    transform: rotate(360deg);\n  }\n}');
  parts.push('@keyframes ping {\n  75%, 100% {\n    transform: scale(2);\n    opacity: 0;\n  }\n}');
  parts.push(
    '@font-face {\n  font-family: "Fira Code";\n  src: url(fonts/fira.woff2) format("woff2");\n  unicode-range: U+0000-00FF;\n}',
  );
  parts.push('@font-face {\n  font-family: Unused;\n  src: url(/fonts/unused.woff2);\n}');
  return parts.join('\n') + '\n';
}

// What real stylesheets hold beyond the frameworks: @charset / @import (dropped), @layer
// statements, comments and beasties directives, CSS nesting, a unicode-range @font-face,
// irregular selector lists, a rule with its own ";".
function edgeCases() {
  return `@charset "utf-8";
@import url("x.css") screen;
/* top comment */
@layer reset, base;
.card { color: red; }
@media print { /* c */ .card { a: b } .zz { c: d } }
/* beasties:include */
.never-here { x: y }
/* beasties:exclude */
.card-text { x: z }
.card { & .card-text { n: 1 } color: blue; }
@font-face { font-family: Ranged; src: url(r.woff); unicode-range: U+4E00-9FFF; }
@font-face { font-family: "Latin"; src: url(l.woff); unicode-range: U+0000-00FF, U+0131; }
.card-text { font-family: Ranged, serif; background: url(img/a.png) }
.title { font: italic bold 12px/30px Latin, sans-serif }
@supports (display: grid) { @media (min-width: 1px) { .card { g: 1 } } }
.card ,  .zz ,.card-text{ m: 1 }
a{};
.x:hover > .y ~ .z + .w, .active .show { q: 1 }
[data-state="open" i] , [dir=rtl] .title { r: 1 }
@layer reset;
`;
}

function stylesheets() {
  return [
    { name: 'edge-cases.css', css: edgeCases() },
    { name: 'bootstrap.css', css: fs.readFileSync(mod('bootstrap/dist/css/bootstrap.css'), 'utf8') },
    { name: 'bootstrap.min.css', css: fs.readFileSync(mod('bootstrap/dist/css/bootstrap.min.css'), 'utf8') },
    {
      name: 'material-azure-blue.css',
      css: fs.readFileSync(mod('@angular/material/prebuilt-themes/azure-blue.css'), 'utf8'),
    },
    {
      name: 'bootstrap+material.css',
      css:
        fs.readFileSync(mod('bootstrap/dist/css/bootstrap.min.css'), 'utf8') +
        '\n' +
        fs.readFileSync(mod('@angular/material/prebuilt-themes/indigo-pink.css'), 'utf8'),
    },
    { name: 'primeicons.css', css: fs.readFileSync(mod('primeicons/primeicons.css'), 'utf8') },
    { name: 'tailwind-like.css', css: tailwindLike() },
  ];
}

// The vocabulary a stylesheet's selectors use.
function vocabulary(css) {
  const classes = new Set();
  const ids = new Set();
  const tags = new Set();
  const attrs = new Map();
  const noComments = css.replace(/\/\*[\s\S]*?\*\//g, '');
  // a run of text between braces that opens a block (the lookbehind keeps this linear)
  for (const m of noComments.matchAll(/(?<=^|[{}])([^{}]+)\{/g)) {
    const sel = m[1];
    if (sel.trim().startsWith('@')) continue;
    for (const c of sel.matchAll(/\.((?:\\.|[\w-])+)/g)) classes.add(c[1].replace(/\\(.)/g, '$1'));
    for (const c of sel.matchAll(/#([\w-]+)/g)) if (!/^[0-9a-f]{3,8}$/i.test(c[1])) ids.add(c[1]);
    for (const c of sel.matchAll(/(?:^|[\s>+~,(])([a-z][a-z0-9]*)/g)) tags.add(c[1]);
    for (const c of sel.matchAll(/\[([\w-]+)(?:[~|^$*]?=["']?([^\]"']*)["']?)?\]/g)) {
      if (!attrs.has(c[1])) attrs.set(c[1], new Set());
      if (c[2] !== undefined) attrs.get(c[1]).add(c[2]);
    }
  }
  return {
    classes: [...classes].filter((c) => c.length < 60),
    ids: [...ids],
    tags: [...tags].filter((t) => t.length < 12),
    attrs: [...attrs].map(([k, v]) => [k, [...v]]),
  };
}

// No <form> inside <form>: htmlparser2 drops the nested start tag and beasties' re-serialized
// page then nests differently (a difference of beasties' writer, see docs/critical-css-differences.md).
const CONTAINERS = ['div', 'section', 'nav', 'main', 'header', 'footer', 'article', 'aside'];
const PHRASING = ['span', 'a', 'strong', 'small', 'code', 'i', 'b', 'em', 'label', 'button', 'abbr', 'mark'];
const VOID = ['img', 'input', 'br', 'hr'];

function escapeAttr(value) {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function generatePage(vocab, seed, variant = {}) {
  const r = rng(seed);
  const out = [];
  const classList = () => {
    const n = r.int(4);
    const list = [];
    for (let i = 0; i < n; i++)
      list.push(
        r.chance(0.85) && vocab.classes.length
          ? r.pick(vocab.classes)
          : r.pick(['x', 'y', 'active', 'show', 'dark', 'group', 'peer']),
      );
    return list;
  };
  const attrsFor = (tag) => {
    const parts = [];
    const cls = classList();
    if (cls.length) parts.push(`class="${escapeAttr(cls.join(r.chance(0.1) ? '  ' : ' '))}"`);
    if (r.chance(0.1))
      parts.push(`id="${escapeAttr(vocab.ids.length && r.chance(0.5) ? r.pick(vocab.ids) : `el${r.int(50)}`)}"`);
    if (r.chance(0.3) && vocab.attrs.length) {
      const [name, values] = r.pick(vocab.attrs);
      if (values.length && r.chance(0.8)) parts.push(`${name}="${escapeAttr(r.pick(values))}"`);
      else parts.push(name);
    }
    if (tag === 'input' && r.chance(0.7))
      parts.push(`type="${r.pick(['checkbox', 'radio', 'text', 'range', 'file'])}"`);
    if (r.chance(0.05)) parts.push('hidden');
    if (r.chance(0.05)) parts.push('disabled');
    if (r.chance(0.05)) parts.push(`dir="${r.pick(['rtl', 'ltr'])}"`);
    if (r.chance(0.05)) parts.push(`data-bs-theme="${r.pick(['dark', 'light'])}"`);
    if (r.chance(0.03)) parts.push(`data-state="open"`);
    if (r.chance(0.03)) parts.push(`aria-disabled="true"`);
    return parts.length ? ' ' + parts.join(' ') : '';
  };
  const text = () => r.pick(['Hello', 'Title', 'Lorem ipsum', 'Ünïcødé ✓', '42', 'a &amp; b', '', '中文', '&copy;']);
  // Form controls never go inside a <button>: htmlparser2 closes the button there (its
  // openImpliesClose) and beasties' re-serialized page differs from the source.
  const phrasing = (depth, inButton = false) => {
    const n = r.int(3);
    for (let i = 0; i < n; i++) {
      if (r.chance(0.15)) {
        const tag = r.pick(inButton ? ['img', 'br'] : VOID);
        out.push(`<${tag}${attrsFor(tag)}>`);
        continue;
      }
      const choices = inButton ? PHRASING.filter((t) => t !== 'button') : PHRASING;
      const tag = r.pick(choices);
      out.push(`<${tag}${attrsFor(tag)}>${text()}`);
      if (depth < 3 && r.chance(0.3)) phrasing(depth + 1, inButton || tag === 'button');
      out.push(`</${tag}>`);
    }
  };
  const flow = (depth) => {
    const n = 1 + r.int(depth < 2 ? 4 : 2);
    for (let i = 0; i < n; i++) {
      const kind = r.int(10);
      if (depth >= 5 || kind < 2) {
        const tag = r.pick(['p', 'h1', 'h2', 'h5', 'span', 'label']);
        out.push(`<${tag}${attrsFor(tag)}>${text()}`);
        phrasing(1);
        out.push(`</${tag}>`);
      } else if (kind === 2) {
        out.push(`<ul${attrsFor('ul')}>`);
        for (let k = r.int(4); k >= 0; k--) {
          out.push(`<li${attrsFor('li')}>${text()}`);
          if (r.chance(0.3)) flow(depth + 2);
          else phrasing(1);
          out.push('</li>');
        }
        out.push('</ul>');
      } else if (kind === 3) {
        out.push(`<table${attrsFor('table')}><thead><tr>`);
        for (let k = 1 + r.int(3); k > 0; k--) out.push(`<th${attrsFor('th')}>${text()}</th>`);
        out.push('</tr></thead><tbody>');
        for (let row = r.int(4); row >= 0; row--) {
          out.push(`<tr${attrsFor('tr')}>`);
          for (let k = 1 + r.int(3); k > 0; k--) {
            out.push(`<td${attrsFor('td')}>`);
            phrasing(1);
            out.push('</td>');
          }
          out.push('</tr>');
        }
        out.push('</tbody></table>');
      } else if (kind === 4 && depth === 0) {
        out.push(`<form${attrsFor('form')}><input${attrsFor('input')}><label>${text()}</label></form>`);
      } else if (kind === 4) {
        out.push(
          `<select${attrsFor('select')}><option${attrsFor('option')}>A</option><option selected>B</option></select>`,
        );
      } else if (kind === 5 && r.chance(0.3)) {
        out.push(
          `<svg class="bi" width="16" height="16" viewBox="0 0 16 16"><path d="M0 0h16v16H0z"/><use href="#x"/></svg>`,
        );
      } else {
        const tag = r.pick(CONTAINERS);
        out.push(`<${tag}${attrsFor(tag)}>`);
        flow(depth + 1);
        out.push(`</${tag}>`);
      }
    }
  };
  const href = variant.href || 'styles.css';
  const linkAttrs = [`rel="stylesheet"`, `href="${href}"`];
  if (variant.media) linkAttrs.push(`media="${escapeAttr(variant.media)}"`);
  if (variant.linkId) linkAttrs.push('id="main-css"');
  if (variant.crossorigin) linkAttrs.push('crossorigin');
  out.push('<!DOCTYPE html>\n');
  out.push(
    `<html lang="en"${r.chance(0.2) ? ` class="${escapeAttr(classList().join(' '))}"` : ''}${r.chance(0.1) ? ' data-bs-theme="dark"' : ''}>\n<head>\n<meta charset="utf-8">\n<title>${text()}</title>\n<base href="/">\n`,
  );
  if (variant.inlineStyle) out.push('<style>.inline-existing{color:red}</style>\n');
  out.push(`<link ${linkAttrs.join(' ')}>\n`);
  if (variant.secondLink) out.push(`<link rel="stylesheet" href="${variant.secondLink}">\n`);
  out.push('</head>\n<body');
  out.push(attrsFor('body'));
  out.push('>\n');
  out.push(variant.nonce ? `<app-root ngCspNonce="${variant.nonce}">` : '<app-root>');
  flow(0);
  out.push('</app-root>\n<script src="main.js" type="module"></script>\n</body>\n</html>\n');
  return out.join('');
}

function variantFor(seed) {
  const r = rng(seed ^ 0x9e3779b9);
  const v = {};
  const k = r.int(20);
  if (k === 0)
    v.media = r.pick([
      'screen',
      'print',
      'only screen',
      '(min-width: 768px)',
      'screen and (min-width: 768px)',
      "x');alert(1);('",
    ]);
  if (k === 1) v.href = r.pick(['/styles.css', 'styles.css?v=3', './styles.css', 'css/../styles.css']);
  if (k === 2) v.nonce = r.pick(['abc123', 'n"o']);
  if (k === 3) v.inlineStyle = true;
  if (k === 4) v.linkId = true;
  if (k === 5) v.secondLink = r.pick(['missing.css', 'styles.css', 'https://cdn.example.com/x.css', 'app.js']);
  if (k === 6) v.crossorigin = true;
  return v;
}

/** The stylesheets in an order drawn from `r` (an rng): the first-paint samples take a prefix. */
function shuffledStylesheets(r) {
  const sheets = stylesheets();
  for (let i = sheets.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [sheets[i], sheets[j]] = [sheets[j], sheets[i]];
  }
  return sheets;
}

module.exports = { rng, stylesheets, shuffledStylesheets, vocabulary, generatePage, variantFor, tailwindLike };
