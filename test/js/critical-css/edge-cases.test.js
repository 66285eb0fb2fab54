'use strict';
// Handwritten stylesheet x page cases the generated corpus does not reach, each checked
// against beasties 0.4 (Angular 21) and 0.5 (Angular 22) configured as Angular's
// InlineCriticalCssProcessor. A failure prints the case. A case marked `nesting` must differ by
// the documented CSS nesting difference and nothing else, any other by nothing but the
// documented link media on the <style> (compare.js's classifyDifference).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CriticalCssEngine } = require('../../../lib/critical-css/engine.js');
const { createAngularProcessor } = require('./beasties-angular.js');
const { classifyDifference, styleTexts, withoutNestedRules, LINK_MEDIA } = require('./compare.js');

const { CASES } = require('./edge-case-pages.js');

for (const beasties of ['0.4', '0.5']) {
  for (const c of CASES) {
    test(`beasties ${beasties}: ${c.name}`, { todo: c.todo?.[beasties] }, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'critical-css-edge-'));
      try {
        fs.writeFileSync(path.join(dir, 'styles.css'), c.css);
        const minify = Boolean(c.minify);
        const ours = new CriticalCssEngine({ path: dir, minify, beasties }).process(c.html);
        const theirs = await (await createAngularProcessor({ path: dir, minify, beasties })).process(c.html);
        if (c.browser) {
          // ours is the browser's reading; beasties' text is checked too, so that a beasties
          // that stops writing it shows here
          assert.deepStrictEqual(styleTexts(ours), [c.browser.style], `${c.name}: ours`);
          assert.deepStrictEqual(styleTexts(theirs), [c.browser.theirs], `${c.name}: beasties ${beasties}`);
          return;
        }
        const found = classifyDifference(ours, theirs, [c.css]);
        const documented = typeof c.documented === 'object' ? c.documented[beasties] : c.documented;
        const what = `${c.name} (beasties ${beasties}, minify ${minify})`;
        const detail = `\n--- css ---\n${c.css}\n--- page ---\n${c.html}\n--- ours ---\n${ours}`;
        if (c.nesting) {
          assert.ok(found?.documented, `${what}: ${found ? found.difference : 'no difference'}${detail}`);
        } else if (documented) {
          assert.strictEqual(found?.documented, documented, `${what}: ${found?.difference}${detail}`);
        } else if (found?.documented !== LINK_MEDIA) {
          // the link's media on ours' <style> is documented on every page that has one
          assert.strictEqual(found?.difference ?? null, null, `${what}: ${found?.difference}${detail}`);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}

test("the nesting classifier's remover: style rules with a nested block, and at-rules left empty", () => {
  const cases = [
    ['.card{& .card-text{font-weight:bold} color:blue}\n.a{b:1}\n', '\n.a{b:1}\n'],
    ['.a{b:1}\n.card{& .x{y:1}}\n@media print{\n  .card{& p{c:3}}\n}\n.z{content:"{"}', '.a{b:1}\n.z{content:"{"}'],
    ['@media print{.card{& p{c:3}}.card-text{e:5}}', '@media print{.card-text{e:5}}'],
    ['@supports (x:y){@media print{.card{& p{c:3}}}}.q{r:s}', '.q{r:s}'],
    // beasties keeps an emptied @layer block; an at-rule empty to begin with is not ours to remove
    ['@layer base{.card{& p{c:3}}}', '@layer base{}'],
    ['@media print{}.a{/* { */b:1}.b{c:"}"}', '@media print{}.a{/* { */b:1}.b{c:"}"}'],
    ['@keyframes k{to{t:1}}.a{@media (x){b:2}}', '@keyframes k{to{t:1}}'],
    // a @keyframes / @font-face only a removed rule uses goes with it, unless the other side has it
    [
      '@keyframes spin{to{t:1}}@keyframes other{to{t:2}}@font-face{font-family:"U";src:url(u)}.card{& p{font-family:U;animation:spin 1s}}.a{animation:other 1s}',
      '@keyframes other{to{t:2}}.a{animation:other 1s}',
    ],
  ];
  for (const [css, expected] of cases) assert.strictEqual(withoutNestedRules(css), expected, css);
  assert.strictEqual(
    withoutNestedRules('@keyframes spin{to{t:1}}.card{& p{animation:spin 1s}}', '@keyframes spin{to{t:1}}'),
    '@keyframes spin{to{t:1}}',
  );
});

test('the classifier accepts a link media on ours <style>, lone [class*=x], pseudo-element, <html>, pseudo-first and line-broken rules, var()-named keyframes, nothing near them', () => {
  const {
    LINK_MEDIA,
    PARTIAL_CLASS,
    PSEUDO_ONLY,
    HTML_SUBJECT,
    LEADING_PSEUDO,
    LINE_BROKEN_PSEUDO,
    KEYFRAMES_VAR,
  } = require('./compare.js');
  const link = '<link rel=stylesheet href=s.css media=print data-beasties-media="(min-width: 9px)">';
  const page = (style) => `<html><head>${style}${link}</head><body></body></html>`;
  const cases = [
    ['<style>.a{b:1}[class*=x]{c:2}</style>', '<style>.a{b:1}</style>', PARTIAL_CLASS],
    ['<style>.a{b:1}@media (x){[class^=x]{c:2}}</style>', '<style>.a{b:1}</style>', PARTIAL_CLASS],
    ['<style>[class$=x]{c:2}</style>', '', PARTIAL_CLASS],
    ['<style>.a{b:1}[class*=x]:hover,[class^=x]:not(.y)::after{c:2}</style>', '<style>.a{b:1}</style>', PARTIAL_CLASS],
    ['<style media="(min-width: 9px)">.a{b:1}</style>', '<style>.a{b:1}</style>', LINK_MEDIA],
    ['<style media="(min-width: 9px)">[class|=x]{c:2}</style>', '', `${PARTIAL_CLASS}; ${LINK_MEDIA}`],
    ['<style>.a{b:1}::file-selector-button{c:2}</style>', '<style>.a{b:1}</style>', PSEUDO_ONLY],
    ['<style>::-webkit-datetime-edit,::-webkit-datetime-edit-text{c:2}</style>', '', PSEUDO_ONLY],
    [
      '<style media="(min-width: 9px)">[class*=x]{c:2}::placeholder{d:3}</style>',
      '',
      `${PARTIAL_CLASS}; ${PSEUDO_ONLY}; ${LINK_MEDIA}`,
    ],
    ['<style>.a{b:1}[data-bs-theme=dark]{c:2}</style>', '<style>.a{b:1}</style>', HTML_SUBJECT],
    ['<style>:root:not([data-theme=dark]){c:2}:where(:root,[x]){d:3}html.y{e:4}</style>', '', HTML_SUBJECT],
    // a first compound of pseudo-classes alone before a combinator, alone or in a list
    ['<style>.a{b:1}:not(pre) > code{c:2}</style>', '<style>.a{b:1}</style>', LEADING_PSEUDO],
    ['<style>:hover~p{c:2}</style>', '', LEADING_PSEUDO],
    ['<style>.a{b:1}:where(p, ul) ~ :is(h1, h2){c:2}</style>', '<style>.a{b:1}</style>', LEADING_PSEUDO],
    [
      '<style>:not(.btn-check) + .btn:active, .btn:first-child:active{c:2}</style>',
      '<style>.btn:first-child:active{c:2}</style>',
      LEADING_PSEUDO,
    ],
    // near ones: a type or class first, a descendant beasties keeps too, another group beside
    ['<style>.a{b:1}p:not(pre) > code{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}.x:not(pre) > code{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}:hover p{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}::before > p{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>:not(.q) + .b, .y, .a{c:2}</style>', '<style>.a{c:2}</style>', null],
    ['<style>.a{b:1}[data-y] .x{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}.x [data-y]{c:2}</style>', '<style>.a{b:1}</style>', null],
    // not documented: another class, an exact [class=x], a media the link does not defer to
    ['<style>.a{b:1}.y{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}[class=x]{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}[class*=x] p{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}input::file-selector-button{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}:hover{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}:-ms-input-placeholder{c:2}</style>', '<style>.a{b:1}</style>', null],
    // such groups in a list, beside groups both keep (beasties filters the list)
    ['<style>::-webkit-datetime-edit,.a{c:2}</style>', '<style>.a{c:2}</style>', PSEUDO_ONLY],
    [
      '<style>.a,[class^=bi-]::before,::backdrop{c:2}</style>',
      '<style>.a{c:2}</style>',
      `${PARTIAL_CLASS}; ${PSEUDO_ONLY}`,
    ],
    ['<style>.a, ::backdrop, .b {c:2}</style>', '<style>.a, .b {c:2}</style>', PSEUDO_ONLY],
    ['<style>@media (x){.b{d:1}::backdrop{c:2}}</style>', '<style>@media (x){.b{d:1}}</style>', PSEUDO_ONLY],
    ['<style>.a{b:1}@media (x){::backdrop{c:2}}</style>', '<style>.a{b:1}</style>', PSEUDO_ONLY],
    // a pseudo-element, then pseudo-classes (beasties' normalization leaves nothing either)
    ['<style>::-webkit-scrollbar-thumb:hover{c:2}</style>', '', PSEUDO_ONLY],
    // one direction only: a group beasties keeps and ours drops, in a list or alone, is not accepted
    ['<style>.a{b:1}</style>', '<style>.a{b:1}[id|=x]{c:2}</style>', null],
    ['<style>.a{b:1}</style>', '<style>.a{b:1}[data-bs-theme=dark]{c:2}</style>', null],
    ['<style>.a{c:2}</style>', '<style>::-webkit-datetime-edit,.a{c:2}</style>', null],
    ['<style>.a,::backdrop{c:2}</style>', '<style>.a,[class*=x]{c:2}</style>', null],
    ['<style>[class*=x]{c:2}</style>', '<style>[class*=x],[class*=y]{c:2}</style>', null],
    [
      '<style>.btn:first-child:active{c:2}</style>',
      '<style>:not(.q) + .btn, .btn:first-child:active{c:2}</style>',
      null,
    ],
    ['<style>.a{b:1}</style>', '<style>.a{b:1}:not(pre) > code{c:2}</style>', null],
    // nor another group beside them, nor a group in another block or place
    ['<style>.y,::backdrop,.a{c:2}</style>', '<style>.a{c:2}</style>', null],
    ['<style>::backdrop,.a{c:3}</style>', '<style>.a{c:2}</style>', null],
    ['<style>@media (y){::backdrop,.a{c:2}}</style>', '<style>@media (x){.a{c:2}}</style>', null],
    ['<style media="(min-width: 8px)">.a{b:1}</style>', '<style>.a{b:1}</style>', null],
    ['<style media="(min-width: 9px)">.a{b:2}</style>', '<style>.a{b:1}</style>', null],
    // a pseudo-class's parentheses closing on another line, alone or in a list
    ['<style>.a{b:1}:is(.fas,\n.fab)::before{c:2}</style>', '<style>.a{b:1}</style>', LINE_BROKEN_PSEUDO],
    ['<style>.a:not(.q,\r\n.r) p,.y{c:2}</style>', '<style>.y{c:2}</style>', LINE_BROKEN_PSEUDO],
    // near ones: on one line, a line break outside parentheses, in a string, the other direction
    ['<style>.a{b:1}.x:not(.q, .r){c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}.x\n.y{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}.x[title="(\n"]{c:2}</style>', '<style>.a{b:1}</style>', null],
    ['<style>.a{b:1}</style>', '<style>.a{b:1}:is(.fas,\n.fab)::before{c:2}</style>', null],
    // @keyframes named through custom properties a kept animation reads
    [
      '<style>@keyframes s{to{t:1}}.a{--n:s;animation:var(--n) 1s}</style>',
      '<style>.a{--n:s;animation:var(--n) 1s}</style>',
      KEYFRAMES_VAR,
    ],
    [
      '<style>@media (x){@keyframes s{to{t:1}}}:root{--m:s, t}.a{--n:var(--m);animation-name:var(--n)}</style>',
      '<style>:root{--m:s, t}.a{--n:var(--m);animation-name:var(--n)}</style>',
      KEYFRAMES_VAR,
    ],
    [
      '<style media="(min-width: 9px)">@keyframes s{to{t:1}}.a{--n:s;animation:var(--n)}</style>',
      '<style>.a{--n:s;animation:var(--n)}</style>',
      `${KEYFRAMES_VAR}; ${LINK_MEDIA}`,
    ],
    // near ones: no animation reads it, another name, a keyframes block beasties lacks otherwise,
    // the other direction
    ['<style>@keyframes s{to{t:1}}.a{--n:s;animation:x 1s}</style>', '<style>.a{--n:s;animation:x 1s}</style>', null],
    [
      '<style>@keyframes s{to{t:1}}.a{--n:q;animation:var(--n)}</style>',
      '<style>.a{--n:q;animation:var(--n)}</style>',
      null,
    ],
    [
      '<style>@keyframes s{to{t:2}}.a{--n:s;animation:var(--n)}</style>',
      '<style>@keyframes s{to{t:1}}.a{--n:s;animation:var(--n)}</style>',
      null,
    ],
    [
      '<style>.a{--n:s;animation:var(--n)}</style>',
      '<style>@keyframes s{to{t:1}}.a{--n:s;animation:var(--n)}</style>',
      null,
    ],
  ];
  for (const [ours, theirs, documented] of cases) {
    const found = classifyDifference(page(ours), page(theirs));
    assert.ok(found !== null, `${ours} vs ${theirs}: no difference`);
    assert.strictEqual(found.documented, documented, `${ours} vs ${theirs}`);
  }
});

test('the classifier accepts stray-} rules and nested <noscript> copies beasties has, namespaced rules ours has, one way', () => {
  const { STRAY_BRACE, NOSCRIPT_COPY, NAMESPACED } = require('./compare.js');
  const page = (head) => `<html><head>${head}</head><body><p>x</p></body></html>`;
  const sheet = '.a{b:1}}\n.s{c:2}@media (x){.a{d:1}}} @media (y){.t{e:3}}.u{f:4}';
  const link = '<link rel="stylesheet" href="s.css" media="print" data-beasties-media="all">';
  const copy = '<noscript><link rel="stylesheet" href="s.css"></noscript>';
  const cases = [
    ['<style>.a{b:1}}</style>', '<style>.a{b:1}\n.s{c:2}}</style>', [sheet], STRAY_BRACE],
    ['<style>.u{f:4}}</style>', '<style>@media (y){.t{e:3}}.u{f:4}}</style>', [sheet], STRAY_BRACE],
    [`<noscript>${link}<p>n</p></noscript>`, `<noscript>${link}${copy}<p>n</p></noscript>`, [], NOSCRIPT_COPY],
    ['<style>@namespace s url(x);s|rect{a:1}.a{b:1}</style>', '<style>.a{b:1}</style>', [], NAMESPACED],
    ['<style>@namespace s url(x);*|p,.a{a:1}[xlink|href]{c:1}</style>', '<style>.a{a:1}</style>', [], NAMESPACED],
    ['<style>@namespace url(x);</style>', '', [], NAMESPACED],
    // beasties keeping a namespaced rule ours lacks, p[lang|=en] or a||b, another @-rule
    ['<style>.a{b:1}</style>', '<style>.a{b:1}s|rect{a:1}</style>', [], null],
    ['<style>p[lang|=en]{a:1}.a{b:1}</style>', '<style>.a{b:1}</style>', [], null],
    ['<style>a||b{a:1}.a{b:1}</style>', '<style>.a{b:1}</style>', [], null],
    ['<style>@import url(x);.a{b:1}</style>', '<style>.a{b:1}</style>', [], null],
    // no sheet given, a rule no stray } swallows, another block, or ours keeping what beasties drops
    ['<style>.a{b:1}}</style>', '<style>.a{b:1}\n.s{c:2}}</style>', [], null],
    ['<style>.a{b:1}}</style>', '<style>.a{b:1}\n.u{f:4}}</style>', [sheet], null],
    ['<style>.a{b:2}}</style>', '<style>.a{b:1}\n.s{c:2}}</style>', [sheet], null],
    ['<style>.a{b:1}\n.s{c:2}}</style>', '<style>.a{b:1}}</style>', [sheet], null],
    // a copy outside a <noscript>, ours with the copy, or something else missing inside it
    [link, `${link}${copy}`, [], null],
    [`<noscript>${link}${copy}<p>n</p></noscript>`, `<noscript>${link}<p>n</p></noscript>`, [], null],
    [`<noscript>${link}</noscript>`, `<noscript>${link}${copy}<p>n</p></noscript>`, [], null],
  ];
  for (const [ours, theirs, sheets, documented] of cases) {
    const found = classifyDifference(page(ours), page(theirs), sheets);
    assert.ok(found !== null, `${ours} vs ${theirs}: no difference`);
    assert.strictEqual(found.documented, documented, `${ours} vs ${theirs}`);
  }
});
