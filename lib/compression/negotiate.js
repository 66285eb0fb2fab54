'use strict';
// Accept-Encoding negotiation with the answers of the `negotiator` package that each peer uses:
// compression 1.8 (negotiator 0.6: a plain split on commas) and koa-compress 5.2 (negotiator 1.x:
// a quote-aware split). The ranking is negotiator's own, kept step for step because it has
// quirks a client can see: `q=0` on one coding lowers the implicit identity to q=1, `*` counts as
// naming identity, a q that is not a number ranks as 0, and ties go to the server's preference,
// then to the order in the header. Rebuilding it from the RFC would pick other codings for such
// headers.
//
// Browsers send a handful of distinct headers, so each negotiator keeps its answers by header
// string (bounded: cleared when full, and long headers are not kept).
const CODING_REGEXP = /^\s*([^\s;]+)\s*(?:;(.*))?$/;
const { parse: parseMediaList } = require('../content-type/v2');

const MAX_REMEMBERED = 512;
const MAX_REMEMBERED_LENGTH = 256;

// negotiator 0.6: split on every comma, then `coding;q=x` by a regular expression.
function parsePlain(header) {
  const parts = header.split(',');
  const specs = [];
  for (let i = 0; i < parts.length; i++) {
    const match = CODING_REGEXP.exec(parts[i].trim());
    if (!match) {
      specs.push(null);
      continue;
    }
    let q = 1;
    if (match[2]) {
      for (const param of match[2].split(';')) {
        const pair = param.trim().split('=');
        if (pair[0] === 'q') {
          q = parseFloat(pair[1]);
          break;
        }
      }
    }
    specs.push({ coding: match[1], q, order: i });
  }
  return specs;
}

// negotiator 1.x: content-type 2's list parser (quote-aware, parameters by name), which
// ssr-native/content-type/v2 reproduces; the coding keeps the header's own casing.
function parseQuoted(header) {
  const specs = [];
  let index = 0;
  while (index < header.length) {
    let start = index;
    while (header.charCodeAt(start) === 0x20 || header.charCodeAt(start) === 0x09) start++;
    const parsed = parseMediaList(header, { comma: true, start });
    const coding = header.slice(start, start + parsed.type.length);
    const i = specs.length;
    specs.push(coding ? { coding, q: parsed.parameters.q ? parseFloat(parsed.parameters.q) : 1, order: i } : null);
    index = parsed.index + 1;
  }
  return specs;
}

// How specifically `spec` (one coding of the header) names `coding`: 1 by name, 0 by `*`, or
// null when it does not name it at all.
function specificity(coding, spec) {
  if (spec.coding.toLowerCase() === coding.toLowerCase()) return 1;
  return spec.coding === '*' ? 0 : null;
}

function parseHeader(header, parse) {
  const parts = parse(header);
  const accepted = [];
  let namesIdentity = false;
  let lowestQ = 1;
  for (const spec of parts) {
    if (spec === null) continue;
    accepted.push(spec);
    namesIdentity = namesIdentity || specificity('identity', spec) !== null;
    lowestQ = Math.min(lowestQ, spec.q || 1);
  }
  // identity is acceptable unless named: it ranks with the lowest q the header gives, last
  if (!namesIdentity) accepted.push({ coding: 'identity', q: lowestQ, order: parts.length });
  return accepted;
}

// The best match of `coding` (the server's `index`-th) among the header's codings.
function rankOf(coding, index, accepted) {
  let best = { coding, index, o: -1, q: 0, s: 0 };
  for (const spec of accepted) {
    const s = specificity(coding, spec);
    if (s === null) continue;
    // the same arithmetic as negotiator, so a NaN q falls through to the position
    if ((best.s - s || best.q - spec.q || best.o - spec.order) < 0)
      best = { coding, index, o: spec.order, q: spec.q, s };
  }
  return best;
}

function comparatorFor(preferred) {
  return function compare(a, b) {
    if (a.q !== b.q) return b.q - a.q;
    const pa = preferred.indexOf(a.coding);
    const pb = preferred.indexOf(b.coding);
    if (pa === -1 && pb === -1) return b.s - a.s || a.o - b.o || a.index - b.index;
    if (pa !== -1 && pb !== -1) return pa - pb;
    return pa === -1 ? 1 : -1;
  };
}

/**
 * A function header -> the coding to use (one of `available`), or undefined when none is
 * acceptable. `flavour` is 'negotiator0' (compression 1.8) or 'negotiator1' (koa-compress 5.2).
 */
function createNegotiator(available, preferred, flavour) {
  const parse = flavour === 'negotiator1' ? parseQuoted : parsePlain;
  const compare = comparatorFor(preferred);
  const remembered = new Map();

  function negotiate(header) {
    const accepted = parseHeader(header, parse);
    const ranks = [];
    for (let i = 0; i < available.length; i++) {
      const rank = rankOf(available[i], i, accepted);
      if (rank.q > 0) ranks.push(rank);
    }
    ranks.sort(compare);
    return ranks.length > 0 ? ranks[0].coding : undefined;
  }

  return function choose(header) {
    if (typeof header !== 'string') header = header === undefined ? '' : String(header);
    if (header.length > MAX_REMEMBERED_LENGTH) return negotiate(header);
    let answer = remembered.get(header);
    if (answer === undefined) {
      answer = negotiate(header) || null;
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(header, answer);
    }
    return answer === null ? undefined : answer;
  };
}

module.exports = { createNegotiator };
