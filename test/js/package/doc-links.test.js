'use strict';
// Every relative link in README.md, CONTRIBUTING.md and docs/*.md leads somewhere: the file exists
// and, for a `#fragment` into a Markdown file, that file has a heading with that anchor (GitHub's
// rule: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeats). Links inside
// fenced code blocks and absolute URLs are not checked. The docs are cut and moved page by page;
// this keeps a moved section from leaving a dead link behind.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..', '..');

function pages() {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

// The text with fenced code blocks blanked out line for line, so line numbers still hold.
function withoutCode(text) {
  return text.replace(/^```[\s\S]*?^```$/gm, (block) => block.replace(/[^\n]/g, ''));
}

function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map();
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const seen = new Map();
    const anchors = new Set();
    for (const m of withoutCode(fs.readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
      const base = slug(m[1]);
      const n = seen.get(base) || 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

// Each problem as "<page>:<line>: <link>: <why>".
function deadLinks(page) {
  const text = withoutCode(fs.readFileSync(path.join(root, page), 'utf8'));
  const dead = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [target, fragment] = link.split('#');
    const file = target ? path.resolve(root, path.dirname(page), target) : path.join(root, page);
    const where = `${page}:${text.slice(0, m.index).split('\n').length}: ${link}`;
    if (!fs.existsSync(file)) dead.push(`${where}: no such file`);
    else if (fragment && file.endsWith('.md') && !anchorsOf(file).has(fragment)) {
      dead.push(`${where}: no heading with that anchor`);
    }
  }
  return dead;
}

test('the pages have relative links to check', () => {
  const count = pages().reduce(
    (n, p) => n + [...fs.readFileSync(path.join(root, p), 'utf8').matchAll(/\]\(/g)].length,
    0,
  );
  assert.ok(count >= 50, `${count} links`);
});

test('GitHub anchors: lower case, punctuation dropped, spaces to hyphens', () => {
  assert.equal(slug('The C++ core alone'), 'the-c-core-alone');
  assert.equal(slug('Asset deltas (`dictionary: true`, RFC 9842)'), 'asset-deltas-dictionary-true-rfc-9842');
  assert.equal(
    slug("Critical CSS per page against Angular 22.2's AppEngine"),
    'critical-css-per-page-against-angular-222s-appengine',
  );
});

for (const page of pages()) {
  test(`${page}: every relative link and anchor resolves`, () => {
    assert.deepEqual(deadLinks(page), []);
  });
}
