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

/** The text of each <style> element of a page, in document order. */
function styleTexts(html) {
  return styles(parse5.parse(String(html)));
}

module.exports = { compareOutputs, styleTexts };
