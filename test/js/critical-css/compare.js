'use strict';
// "The same output" for critical CSS: every <style> element's text byte for byte, and the
// documents equal once parsed as a browser parses HTML (parse5) and serialized again.
const parse5 = require('parse5');

function styles(node, out = []) {
  if (node.nodeName === 'style') {
    out.push((node.childNodes || []).map((c) => c.value || '').join(''));
  }
  for (const child of node.childNodes || []) styles(child, out);
  if (node.content) styles(node.content, out);
  return out;
}

function compareOutputs(ours, theirs) {
  const a = parse5.parse(String(ours));
  const b = parse5.parse(String(theirs));
  const sa = styles(a);
  const sb = styles(b);
  if (sa.length !== sb.length) return `style count ${sa.length} vs beasties ${sb.length}`;
  for (let i = 0; i < sa.length; i++) {
    if (sa[i] !== sb[i]) {
      let k = 0;
      while (k < sa[i].length && sa[i][k] === sb[i][k]) k++;
      return `style ${i} differs at ${k}: ours ${JSON.stringify(sa[i].slice(Math.max(0, k - 80), k + 80))}\n beasties ${JSON.stringify(sb[i].slice(Math.max(0, k - 80), k + 80))}`;
    }
  }
  const da = parse5.serialize(a);
  const db = parse5.serialize(b);
  if (da !== db) {
    let k = 0;
    while (k < da.length && da[k] === db[k]) k++;
    return `document differs at ${k}: ours ${JSON.stringify(da.slice(Math.max(0, k - 100), k + 100))}\n beasties ${JSON.stringify(db.slice(Math.max(0, k - 100), k + 100))}`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The one intended difference from beasties in the <style> text (docs/critical-css-differences.md,
// "CSS nesting"): ours keeps a style rule with nested rules whole when its own selectors match
// the page; beasties (0.4 and 0.5) drops it, or keeps it with only the nested parts css-select
// takes on their own (daisyUI's `:root{--x:…;@media (…){transition:…}}` becomes
// `:root{@media (…){transition:…}}`). withoutNestedRules(css) is a <style> text with every style
// rule whose block holds a nested `{` removed (with the whitespace before it, its raws.before),
// at any at-rule depth, and then every at-rule that held such a rule and is left with nothing but
// whitespace (beasties drops an at-rule whose children are all removed; @layer and @font-face it
// keeps). Strings, comments and escapes are skipped. Both sides go through it: what is left, every
// rule without nesting and the rest of the page, must be the same byte for byte.

function scanBlocks(css) {
  // Top-level nodes and their blocks: { start, open, close, end, at, children } where `start` is
  // the beginning of the whitespace before the prelude. Iterative (an explicit stack).
  const root = { children: [], open: -1 };
  const stack = [root];
  let preludeStart = 0; // where the current prelude's whitespace starts
  let i = 0;
  const n = css.length;
  while (i < n) {
    const c = css[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < n && css[i] !== c) i += css[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '/' && css[i + 1] === '*') {
      const e = css.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      preludeStart = i;
      continue;
    }
    if (c === '{') {
      let p = preludeStart;
      while (p < i && /\s/.test(css[p])) p++;
      const node = { start: preludeStart, prelude: p, open: i, close: -1, end: -1, children: [] };
      node.at =
        css[p] === '@'
          ? css
              .slice(p + 1)
              .match(/^[-\w]*/)[0]
              .toLowerCase()
          : null;
      stack[stack.length - 1].children.push(node);
      stack.push(node);
      preludeStart = i + 1;
    } else if (c === '}') {
      if (stack.length > 1) {
        const node = stack.pop();
        node.close = i;
        node.end = i + 1;
      }
      preludeStart = i + 1;
    } else if (c === ';') {
      preludeStart = i + 1;
    }
    i++;
  }
  return root;
}

// A style rule holding nested rules or at-rules (NESTING).
const nestedRule = (node) => node.children.length > 0;

// A selector (one group of a list) of the paint classes, which ours keeps where beasties drops it.
// Both read it as beasties does, after its normalization takes pseudo-classes and -elements out
// (its pattern: PSEUDO).
const PSEUDO = /(?<!\\)::?[a-z-]+(?:\(.+\))?/gi;
// PARTIAL_CLASS: what is left is a lone class / id attribute selector that beasties' class / id
// cache reads as the whole class or id and the browser does not (`[class*=x]`, `^=`, `$=`, `|=`,
// `!=`, `[class]`, an `i` flag): `[class^=bi-]::before` is read as the class `bi-`.
const LONE_ATTRIBUTE =
  /^\[\s*(class|id)\s*(?:([~|^$*!]?=)\s*(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^\]\s"']*)\s*([iIsS]?)\s*)?\]$/;
function isPartialClassGroup(group) {
  const m = LONE_ATTRIBUTE.exec(group.replace(PSEUDO, '').trim());
  return m !== null && (m[2] === undefined || !['=', '~='].includes(m[2]) || /i/i.test(m[3]));
}
// PSEUDO_ONLY: a pseudo-element first, nothing left (`::file-selector-button`,
// `::-moz-placeholder`, `::-webkit-scrollbar-thumb:hover`); ours keeps it as the browser applies
// it, as `*::x`.
const isPseudoOnlyGroup = (group) => group.trim().startsWith('::') && group.replace(PSEUDO, '').trim() === '';

// A selector list's groups, split at the commas outside parentheses, brackets and strings.
function splitGroups(prelude) {
  const groups = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i];
    if (c === '\\') i++;
    else if (c === '"' || c === "'") {
      i++;
      while (i < prelude.length && prelude[i] !== c) i += prelude[i] === '\\' ? 2 : 1;
    } else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      groups.push(prelude.slice(from, i));
      from = i + 1;
    }
  }
  groups.push(prelude.slice(from));
  return groups;
}

// The style rules of css without nested blocks, in order: each with the at-rules around it
// (`context`: their preludes), its groups (trimmed) and its block's text.
function leafRules(css) {
  const rules = [];
  const visit = (node, context) => {
    for (const child of node.children) {
      if (child.close < 0) return;
      if (child.at !== null) {
        visit(child, `${context}${css.slice(child.prelude, child.open).trim()}{`);
      } else if (child.children.length === 0) {
        const groups = splitGroups(css.slice(child.prelude, child.open)).map((g) => g.trim());
        rules.push({ node: child, context, groups, block: css.slice(child.open, child.end) });
      }
    }
  };
  visit(scanBlocks(css), '');
  return rules;
}

// The groups `ours` has beyond `theirs` when theirs is ours with some groups taken out, each of
// them one `droppable` picks; null otherwise (theirs has a group ours lacks, or ours has another).
function extraGroups(ours, theirs, droppable) {
  const extra = [];
  let j = 0;
  for (const group of ours) {
    if (j < theirs.length && group === theirs[j]) j++;
    else if (droppable(group)) extra.push(group);
    else return null;
  }
  return j === theirs.length ? extra : null;
}

// One direction only: css (ours) without the groups of the paint classes (`classes`: [name,
// test]) that it keeps and `other` (beasties') drops. Ours' style rules are walked beside
// beasties' in order: a rule with the same at-rules and block whose groups are beasties' plus
// some of those classes loses them (the rest joined as postcss joins a filtered list, by the
// list's first separator); a rule of those classes alone that beasties lacks is removed, then an
// at-rule left empty by that and the @keyframes / @font-face only it used (withoutRules). A group
// beasties keeps and ours drops, or of another kind, is never taken out: the comparison after
// this sees it. { css, names: the classes taken out }.
function withoutOwnGroups(css, other, classes) {
  const classOf = (group) => classes.find(([, test]) => test(group))?.[0];
  const droppable = (group) => classOf(group) !== undefined;
  const theirs = leafRules(other);
  const names = new Set();
  const edits = []; // [begin, end, text], in order
  const removed = []; // starts of the rules removed whole
  let j = 0;
  for (const rule of leafRules(css)) {
    const t = theirs[j];
    let extra =
      t && t.context === rule.context && t.block === rule.block ? extraGroups(rule.groups, t.groups, droppable) : null;
    if (extra !== null) {
      j++;
      if (extra.length > 0) {
        const prelude = css.slice(rule.node.prelude, rule.node.open);
        const between = /\s*$/.exec(prelude)[0];
        edits.push([rule.node.prelude, rule.node.open, t.groups.join(/,\s*/.exec(prelude)[0]) + between]);
      }
    } else if (rule.groups.every(droppable)) {
      extra = rule.groups;
      removed.push(rule.node.start);
    } else {
      continue;
    }
    for (const group of extra) names.add(classOf(group));
  }
  let out = '';
  let k = 0;
  let shift = 0;
  const starts = new Set();
  let r = 0;
  for (const [b, e, text] of edits) {
    for (; r < removed.length && removed[r] < b; r++) starts.add(removed[r] + shift);
    out += css.slice(k, b) + text;
    shift += text.length - (e - b);
    k = e;
  }
  for (; r < removed.length; r++) starts.add(removed[r] + shift);
  out += css.slice(k);
  return { css: starts.size === 0 ? out : withoutRules(out, other, (node) => starts.has(node.start)), names };
}

// A page (ours) through withoutOwnGroups, each <style> against the same <style> of `other`, a
// <style> left empty removed: { html, names } or null when nothing was taken out.
function withoutOwnGroupsPage(html, other, classes) {
  const doc = parse5.parse(String(html));
  const elements = collectStyles(doc);
  const before = styles(doc);
  const others = styles(parse5.parse(String(other)));
  const names = new Set();
  const after = before.map((text, i) => {
    const result = withoutOwnGroups(text, others[i] ?? '', classes);
    for (const name of result.names) names.add(name);
    return result.css;
  });
  if (names.size === 0) return null;
  setStyles(doc, after.slice());
  dropStyles(doc, new Set(elements.filter((e, i) => after[i] !== before[i] && after[i].trim() === '')));
  return { html: parse5.serialize(doc), names: classes.map(([name]) => name).filter((n) => names.has(n)) };
}

// HTML_SUBJECT: one compound (no combinator outside brackets and parentheses) that may match the
// document element: `html…`, `:root…`, `:is(…)`, `:where(…)`, `*…` or attributes first
// (`[data-bs-theme=dark]`, `html[lang]`, `:root:not([data-theme=dark])`, `:where(:root,[data-theme])`);
// not a lone class / id attribute (PARTIAL_CLASS's). beasties searches below <html> and empties
// `:root:not()`, `:is()` and `:where()`; ours matches <html> too.
function isHtmlSubjectGroup(group) {
  let compound = '';
  let depth = 0;
  const text = group.trim();
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') compound += text.slice(i, ++i + 1);
    else {
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      if (depth === 0 && /[\s>+~]/.test(c)) return false; // a combinator
      compound += c;
    }
  }
  return /^(?:html(?![-\w])|:root|:is\(|:where\(|\[|\*)/i.test(compound) && !LONE_ATTRIBUTE.test(compound);
}

// LEADING_PSEUDO: a first compound of pseudo-classes alone before a combinator (UIkit's
// `:not(pre) > code`, `:hover ~ p`, Pico's `:where(p, ul) ~ :is(h1, h2)`). beasties' normalization
// leaves `> code`, read from the container (<html>'s children only), or nothing, and drops it;
// ours reads the compound as any element (`* > code`, `* ~ h1`).
const PSEUDO_CLASS = String.raw`:(?!:)[-\w]+(?:\((?:[^()]|\([^()]*\))*\))?`;
const LEADING_PSEUDO_GROUP = new RegExp(String.raw`^(?:${PSEUDO_CLASS})+(?:\s*[>+~]|\s+:(?!:))`);
const isLeadingPseudoGroup = (group) => LEADING_PSEUDO_GROUP.test(group.trim());

// LINE_BROKEN_PSEUDO: a pseudo-class whose parentheses close on another line (Font Awesome's
// `:is(.fas,\n.fab)::before`): beasties' pattern takes `:is` alone, leaves `(.fas,\n.fab)`, which
// css-what refuses, and drops it; ours reads the selector as on one line, as the browser does.
const isLineBrokenPseudoGroup = (group) =>
  /[\n\r]/.test(group) &&
  group
    .replace(PSEUDO, '')
    .replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '')
    .includes('(');

// STRAY_BRACE: a `}` at the top level of the stylesheet starts a rule in the browser whose
// prelude runs to the next `{` and whose block ends at the matching `}` (CSS Syntax 3): that
// rule never applies. postcss-safe-parser (beasties) keeps it; ours leaves it out. The style
// rules so swallowed in `css`, as keys (ruleKey: the at-rules around it and its selectors).
const ruleKey = (context, groups) =>
  [context, ...groups].map((t) => t.replace(/\s+/g, ' ').replace(/\s*([>+~,{])\s*/g, '$1')).join('\0');
// The last index of an escape, string or comment starting at `i` in `css` (its brackets and braces
// are text), or `i` itself when none starts there.
function skipOpaque(css, i) {
  const c = css[i];
  if (c === '\\') return i + 1;
  if (c === '"' || c === "'") {
    let j = i + 1;
    while (j < css.length && css[j] !== c) j += css[j] === '\\' ? 2 : 1;
    return j;
  }
  if (c === '/' && css[i + 1] === '*') {
    const e = css.indexOf('*/', i + 2);
    return e < 0 ? css.length : e + 1;
  }
  return i;
}
function swallowedEnd(css, p) {
  const closers = [];
  for (let i = p; i < css.length; i++) {
    const skipped = skipOpaque(css, i);
    const c = css[i];
    if (skipped !== i) i = skipped;
    else if (c === '(' || c === '[' || c === '{') closers.push({ '(': ')', '[': ']', '{': '}' }[c]);
    else if (closers.length > 0 && c === closers.at(-1)) {
      closers.pop();
      if (closers.length === 0 && c === '}') return i + 1;
    }
  }
  return css.length;
}
function swallowedRules(css) {
  const keys = new Set();
  let depth = 0;
  for (let i = 0; i < css.length; i++) {
    const skipped = skipOpaque(css, i);
    const c = css[i];
    if (skipped !== i) i = skipped;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === '}') {
      const end = swallowedEnd(css, i + 1);
      // an unclosed block at the sheet's end: closed, as postcss closes it
      for (const rule of leafRules(css.slice(i + 1, end) + '}'.repeat(256)))
        keys.add(ruleKey(rule.context, rule.groups));
      i = end - 1;
    }
  }
  return keys;
}
// theirs (beasties' page) without the style rules a stray `}` of `sheets` swallows: { html,
// names } or null when it has none.
function withoutSwallowedPage(theirs, sheets) {
  const keys = new Set(sheets.flatMap((css) => [...swallowedRules(css)]));
  if (keys.size === 0) return null;
  const swallowed = new Map(); // a <style> text: the starts of its swallowed rules
  const page = withoutRulesPage(theirs, '', (node, css) => {
    if (!swallowed.has(css)) {
      const rules = leafRules(css).filter((r) => keys.has(ruleKey(r.context, r.groups)));
      swallowed.set(css, new Set(rules.map((r) => r.node.start)));
    }
    return swallowed.get(css).has(node.start);
  });
  return page === null ? null : { html: page, names: [STRAY_BRACE] };
}

// NOSCRIPT_COPY: beasties writes its <noscript> copy of a link that stands inside the page's
// own <noscript>; the browser ends the outer one at the copy's end tag and paints the rest of
// it. Ours writes none there. theirs without such copies: { html, names } or null.
function withoutNestedNoscriptCopies(theirs) {
  let removed = false;
  const html = String(theirs).replace(/<noscript><link\b[^>]*><\/noscript>/g, (copy, at, text) => {
    const before = text.slice(0, at).toLowerCase();
    if (before.lastIndexOf('<noscript') <= before.lastIndexOf('</noscript')) return copy;
    removed = true;
    return '';
  });
  return removed ? { html, names: [NOSCRIPT_COPY] } : null;
}

// NAMESPACED: a selector with a namespace (`svg|rect`, `*|p`, `|p`, `[xlink|href]`; not `|=`
// nor `||`), which css-select refuses and beasties drops; ours reads the namespace as any and
// keeps the stylesheet's @namespace rules. The @namespace statements ours has beyond `other`'s
// <style> are taken out by withoutNamespaceRules.
const isNamespacedGroup = (group) =>
  /(?:^|[^|\\])\|(?![=|])/.test(group.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, ''));
function withoutNamespaceRulesPage(html, other) {
  const doc = parse5.parse(String(html));
  const elements = collectStyles(doc);
  const before = styles(doc);
  const others = styles(parse5.parse(String(other)));
  const after = before.map((text, i) =>
    text.replace(/\s*@namespace\b[^;{}]*;/gi, (rule) => ((others[i] ?? '').includes(rule.trim()) ? rule : '')),
  );
  if (after.every((t, i) => t === before[i])) return null;
  setStyles(doc, after.slice());
  dropStyles(doc, new Set(elements.filter((e, i) => after[i] !== before[i] && after[i].trim() === '')));
  return parse5.serialize(doc);
}

function withoutNestedRules(css, other = '') {
  return withoutRules(css, other, nestedRule);
}

// css without each style rule `removable(node, css)` picks, at any at-rule depth, then every
// at-rule that held such a rule and is left with nothing but whitespace, then the @keyframes and
// @font-face only removed rules used (withoutFacesUsedOnlyBy).
function withoutRules(css, other, removable) {
  const cuts = []; // [begin, end) ranges, in order
  // Post-order over blocks: returns true when `node` is removed.
  const visit = (node) => {
    let removedChild = false;
    for (const child of node.children) {
      if (child.close < 0) return false; // unclosed: leave it as it is
      if (child.at === null) {
        if (removable(child, css)) {
          cuts.push([child.start, child.end]);
          removedChild = true;
        }
        continue;
      }
      if (visit(child)) removedChild = true;
    }
    if (node === root || node.at === null || !removedChild) return false;
    if (node.at === 'layer' || node.at === 'font-face') return false;
    // What is left of the block after the cuts within it: whitespace only drops the at-rule.
    let left = '';
    let k = node.open + 1;
    for (const [b, e] of cuts) {
      if (b < node.open || e > node.close) continue;
      left += css.slice(k, b);
      k = e;
    }
    left += css.slice(k, node.close);
    if (left.trim() !== '') return false;
    for (let j = cuts.length - 1; j >= 0 && cuts[j][0] > node.open; j--) cuts.pop();
    cuts.push([node.start, node.end]);
    return true;
  };
  const root = scanBlocks(css);
  visit(root);
  let out = '';
  let removed = '';
  let k = 0;
  for (const [b, e] of cuts) {
    out += css.slice(k, b);
    removed += css.slice(b, e);
    k = e;
  }
  out += css.slice(k);
  return removed === '' ? out : withoutFacesUsedOnlyBy(out, removed, other);
}

// Ours keeps the @keyframes and @font-face its kept nested rules use; beasties, without those
// rules, does not (but keeps those its partly kept nested rules' own declarations use). Removed
// from `css`: each @keyframes / @font-face block that the other side's text (`other`) does not
// hold and whose name (the keyframes name, the font family) is a word of the removed rules' text
// and of nothing else left in `css` but its own blocks.
function withoutFacesUsedOnlyBy(css, removed, other) {
  const root = scanBlocks(css);
  const faces = [];
  const collect = (node) => {
    for (const child of node.children) {
      if (child.close < 0) continue;
      let name = null;
      if (child.at === 'keyframes' || child.at === '-webkit-keyframes') {
        name = css
          .slice(child.prelude, child.open)
          .replace(/^@[-\w]+/, '')
          .trim();
      } else if (child.at === 'font-face') {
        const m = /font-family\s*:\s*([^;}]*)/i.exec(css.slice(child.open + 1, child.close));
        name = m ? m[1].trim().replace(/^(["'])(.*)\1$/, '$2') : null;
      } else if (child.at !== null) {
        collect(child);
      }
      if (name) faces.push({ node: child, name });
    }
  };
  collect(root);
  const word = (name) => new RegExp(`(^|[^-\\w])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^-\\w]|$)`);
  const cuts = faces.filter(({ node, name }) => {
    if (other.includes(css.slice(node.prelude, node.end)) || !word(name).test(removed)) return false;
    let rest = '';
    let k = 0;
    for (const f of faces) {
      if (f.name !== name) continue;
      rest += css.slice(k, f.node.start);
      k = f.node.end;
    }
    rest += css.slice(k);
    return !word(name).test(rest);
  });
  let out = '';
  let k = 0;
  for (const { node } of cuts) {
    out += css.slice(k, node.start);
    k = node.end;
  }
  return out + css.slice(k);
}

function setStyles(node, texts) {
  if (node.nodeName === 'style') {
    const text = texts.shift();
    node.childNodes = text === '' ? [] : [{ nodeName: '#text', value: text, parentNode: node }];
  }
  for (const child of node.childNodes || []) setStyles(child, texts);
  if (node.content) setStyles(node.content, texts);
}

function dropStyles(node, drop) {
  if (node.childNodes) node.childNodes = node.childNodes.filter((c) => !drop.has(c));
  for (const child of node.childNodes || []) dropStyles(child, drop);
  if (node.content) dropStyles(node.content, drop);
}

function collectStyles(node, out = []) {
  if (node.nodeName === 'style') out.push(node);
  for (const child of node.childNodes || []) collectStyles(child, out);
  if (node.content) collectStyles(node.content, out);
  return out;
}

// A page without its style rules with nested rules: each <style>'s text through
// withoutNestedRules, and a <style> left empty by that removed (beasties removes a <style> it
// inlined nothing into). Null when the page keeps no nested rule. `other`: the page compared
// with (withoutNestedRules' `other`: its <style> texts).
function withoutNestedRulesPage(html, other = '') {
  return withoutRulesPage(html, other, nestedRule);
}

function withoutRulesPage(html, other, removable) {
  const doc = parse5.parse(String(html));
  const elements = collectStyles(doc);
  const before = styles(doc);
  const others = styles(parse5.parse(String(other)));
  const after = before.map((text, i) => withoutRules(text, others[i] ?? '', removable));
  if (after.every((t, i) => t === before[i])) return null;
  setStyles(doc, after.slice());
  dropStyles(doc, new Set(elements.filter((e, i) => after[i] !== before[i] && after[i].trim() === '')));
  return parse5.serialize(doc);
}

// ---------------------------------------------------------------------------------------------
// The second intended difference (docs/critical-css-differences.md, "a link's media"): ours
// writes the link's `media` (not empty, not `all`) on the <style> it inlines before it, so the
// critical CSS paints where the stylesheet would; beasties' <style> has no media.
// withoutLinkMediaPage(html) is ours with that attribute removed from each <style> that is
// followed (past scripts) by its deferred link (media="print") one of whose deferred media
// (data-beasties-media, the onload's `this.media='…'`, ngCspMedia) is the same text, or `all`
// (beasties writes `all` for a media it does not accept). Null when no <style> has one.

const attr = (node, name) => (node.attrs || []).find((a) => a.name === name)?.value;

function deferredMedia(link) {
  const m = /^this\.media=["'](.*)["'];?$/.exec(attr(link, 'onload') ?? '');
  return [attr(link, 'data-beasties-media'), attr(link, 'ngcspmedia'), m?.[1]].filter((v) => v !== undefined);
}

function stripLinkMedia(node, stripped) {
  const children = node.childNodes || [];
  children.forEach((child, i) => {
    const media = child.nodeName === 'style' ? attr(child, 'media') : undefined;
    if (media === undefined || media === '' || media === 'all') return;
    let k = i + 1;
    while (k < children.length && (children[k].nodeName === '#text' || children[k].nodeName === 'script')) k++;
    const link = children[k];
    if (!link || link.nodeName !== 'link' || attr(link, 'media') !== 'print') return;
    const deferred = deferredMedia(link);
    if (!deferred.includes(media) && !deferred.includes('all')) return;
    child.attrs = child.attrs.filter((a) => a.name !== 'media');
    stripped.count++;
  });
  for (const child of children) stripLinkMedia(child, stripped);
  if (node.content) stripLinkMedia(node.content, stripped);
}

function withoutLinkMediaPage(html) {
  const doc = parse5.parse(String(html));
  const stripped = { count: 0 };
  stripLinkMedia(doc, stripped);
  return stripped.count === 0 ? null : parse5.serialize(doc);
}

// ---------------------------------------------------------------------------------------------
// KEYFRAMES_VAR (docs/critical-css-differences.md): ours keeps the @keyframes a kept animation
// names through custom properties (`animation: var(--a) 1s` with `--a: spin`, or through
// `--a: var(--b)`); beasties reads only the animation value's own words and drops them.
// withoutVarKeyframesPage(html, other) is ours without each such @keyframes block (at any depth)
// that the same <style> of `other` does not hold; null when none is taken out.

// The words of the values of the custom properties css's animation / animation-name
// declarations read through var(), followed through the custom properties' own var()s.
function keyframesReadThroughVar(css) {
  const values = new Map();
  for (const [, name, value] of css.matchAll(/(--[-\w]+)\s*:\s*([^;{}]*)/g)) {
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const reads = (value) => [...value.matchAll(/var\(\s*(--[-\w]+)/gi)].map((m) => m[1]);
  const wanted = [];
  for (const [, value] of css.matchAll(/(?:^|[;{\s])animation(?:-name)?\s*:\s*([^;{}]*)/g))
    wanted.push(...reads(value));
  const seen = new Set(wanted);
  const names = new Set();
  while (wanted.length > 0) {
    for (const value of values.get(wanted.pop()) ?? []) {
      for (const word of value.split(/[\s,]+/)) if (word) names.add(word);
      for (const name of reads(value)) if (!seen.has(name)) seen.add(name) && wanted.push(name);
    }
  }
  return names;
}

function withoutVarKeyframesPage(html, other) {
  const doc = parse5.parse(String(html));
  const before = styles(doc);
  const others = styles(parse5.parse(String(other)));
  const after = before.map((css, i) => {
    const names = keyframesReadThroughVar(css);
    if (names.size === 0) return css;
    const cuts = [];
    // true when every child of `node` is cut: an at-rule then goes too, as beasties drops an
    // at-rule left empty (@layer it keeps)
    const visit = (node) => {
      let all = node.children.length > 0;
      for (const child of node.children) {
        const from = cuts.length;
        if (child.close >= 0 && child.at === 'keyframes') {
          const name = css
            .slice(child.prelude, child.open)
            .replace(/^@keyframes/i, '')
            .trim();
          if (names.has(name) && !(others[i] ?? '').includes(css.slice(child.prelude, child.end))) {
            cuts.push(child);
            continue;
          }
        } else if (child.close >= 0 && child.at !== null && child.at !== 'layer' && visit(child)) {
          cuts.splice(from, cuts.length - from, child);
          continue;
        }
        all = false;
      }
      return all;
    };
    visit(scanBlocks(css));
    let out = '';
    let k = 0;
    for (const node of cuts) {
      out += css.slice(k, node.start);
      k = node.end;
    }
    return out + css.slice(k);
  });
  if (after.every((t, i) => t === before[i])) return null;
  setStyles(doc, after.slice());
  return parse5.serialize(doc);
}

// The one classifier of differences from beasties / Angular's processor: null when the same,
// { documented, difference } when the two differ only by the documented classes (documented names
// each one found), { documented: null, difference } otherwise:
// - LINK_MEDIA: ours equals theirs once withoutLinkMediaPage takes the media off ours' <style>;
// - KEYFRAMES_VAR: ours' @keyframes named through custom properties taken out
//   (withoutVarKeyframesPage), never theirs';
// - LINE_BROKEN_PSEUDO, PARTIAL_CLASS, PSEUDO_ONLY, HTML_SUBJECT, LEADING_PSEUDO: ours keeps groups (selectors of a list, or whole rules) of those
//   classes that beasties drops: equal once withoutOwnGroupsPage takes them out of ours (never
//   out of beasties': a group beasties keeps and ours drops stays a difference);
// - NESTING: both pages through withoutNestedRulesPage equal (ours keeps such rules whole,
//   beasties drops them or keeps parts: either side has what the other lacks).
const NESTING = 'css nesting: ours keeps a style rule with nested rules whose selectors match the page';
const LINK_MEDIA = "a link's media: ours writes it on the inlined <style>";
const PARTIAL_CLASS = 'a lone [class*=x] (^=, $=, |=): ours matches it as the browser does, not as a whole class';
const PSEUDO_ONLY = 'a selector of pseudo-elements alone: ours keeps it, as the browser applies it';
const HTML_SUBJECT = 'a selector whose subject is the document element (<html>, :root:not(), :where()): ours keeps it';
const LEADING_PSEUDO = 'a first compound of pseudo-classes alone (:not(pre) > code): ours reads it as any element';
const LINE_BROKEN_PSEUDO =
  "a pseudo-class's parentheses closing on another line: ours reads the selector as on one line";
const KEYFRAMES_VAR = '@keyframes named through a custom property a kept animation reads: ours keeps them';
const STRAY_BRACE = 'a rule after a stray } in the stylesheet: ours leaves it out, as the browser does';
const NOSCRIPT_COPY = "a link inside the page's own <noscript>: ours writes no <noscript> copy inside it";
const NAMESPACED = 'a namespaced selector (svg|rect, *|p): ours keeps it and @namespace, as the browser applies it';
const GROUP_CLASSES = [
  [NAMESPACED, isNamespacedGroup],
  [LINE_BROKEN_PSEUDO, isLineBrokenPseudoGroup],
  [PARTIAL_CLASS, isPartialClassGroup],
  [PSEUDO_ONLY, isPseudoOnlyGroup],
  [HTML_SUBJECT, isHtmlSubjectGroup],
  [LEADING_PSEUDO, isLeadingPseudoGroup],
];
// - STRAY_BRACE (given the stylesheets, `sheets`), NOSCRIPT_COPY: beasties' page has rules a
//   stray `}` swallows, or <noscript> copies inside a <noscript>, that ours leaves out: equal once
//   they are taken out of beasties' (never out of ours').
function classifyDifference(ours, theirs, sheets = []) {
  const difference = compareOutputs(ours, theirs);
  if (difference === null) return null;
  let other = String(theirs);
  const theirsOwn = [];
  for (const taken of [withoutSwallowedPage(other, sheets), withoutNestedNoscriptCopies(other)]) {
    if (taken === null) continue;
    other = taken.html;
    theirsOwn.push(...taken.names);
  }
  const unmedia = withoutLinkMediaPage(ours);
  const unkeyframed = withoutVarKeyframesPage(unmedia ?? String(ours), other);
  const base = unkeyframed ?? unmedia ?? String(ours);
  const media = [
    ...theirsOwn,
    ...(unkeyframed === null ? [] : [KEYFRAMES_VAR]),
    ...(unmedia === null ? [] : [LINK_MEDIA]),
  ];
  const same = (a, b) => compareOutputs(a, b) === null;
  const grouped = withoutOwnGroupsPage(base, other, GROUP_CLASSES);
  const pages = [[base, []], ...(grouped === null ? [] : [[grouped.html, grouped.names]])].map(([page, names]) => {
    const unspaced = withoutNamespaceRulesPage(page, other);
    if (unspaced === null) return [page, names];
    return [unspaced, names.includes(NAMESPACED) ? names : [NAMESPACED, ...names]];
  });
  for (const [page, names] of pages) {
    if (same(page, other)) return { documented: [...names, ...media].join('; '), difference };
    const a = withoutRulesPage(page, other, nestedRule);
    const b = withoutRulesPage(other, page, nestedRule);
    if ((a !== null || b !== null) && same(a ?? page, b ?? other)) {
      return { documented: [NESTING, ...names, ...media].join('; '), difference };
    }
  }
  return { documented: null, difference };
}

// compareOutputs, with the documented differences (classifyDifference) counted as the same.
function compareOutputsAllowingDocumented(ours, theirs, sheets) {
  const c = classifyDifference(ours, theirs, sheets);
  return c === null || c.documented ? null : c.difference;
}

/** The text of each <style> element of a page, in document order. */
function styleTexts(html) {
  return styles(parse5.parse(String(html)));
}

module.exports = {
  compareOutputs,
  styleTexts,
  classifyDifference,
  compareOutputsAllowingDocumented,
  withoutNestedRules,
  withoutNestedRulesPage,
  withoutLinkMediaPage,
  NESTING,
  LINK_MEDIA,
  PARTIAL_CLASS,
  PSEUDO_ONLY,
  HTML_SUBJECT,
  LEADING_PSEUDO,
  LINE_BROKEN_PSEUDO,
  KEYFRAMES_VAR,
  STRAY_BRACE,
  NOSCRIPT_COPY,
  NAMESPACED,
};
