'use strict';
// Accept-Encoding negotiation with the answers each peer gives, kept step for step because the
// peers' parsers have quirks a client can see; rebuilding any of them from the RFC would pick
// other codings for such headers. Four flavours:
// - 'negotiator0', 'negotiator1': the `negotiator` package's ranking, as compression 1.8
//   (negotiator 0.6: a plain split on commas) and koa-compress 5.2 (negotiator 1.x: a
//   quote-aware split) use it. `q=0` on one coding lowers the implicit identity to q=1, `*`
//   counts as naming identity, a q that is not a number ranks as 0, and ties go to the server's
//   preference, then to the order in the header.
// - 'fastify-compress': @fastify/compress 9 (the header lower-cased, `*` and `x-gzip` read as
//   gzip, then @fastify/accept-negotiator 2's one-pass scanner: the server's order is the
//   preference, the first q=1 match of its first coding ends the scan, q=0 and unparsable q
//   are skipped).
// - 'hono-compress': hono/compress 4.13 (hono's Accept parser: types with parameters, quoted
//   values; the first of the candidates with q=1 wins, else the highest q, `*` standing for
//   any coding not named).
//
// Browsers send a handful of distinct headers, so each negotiator keeps its answers by header
// string (bounded: cleared when full, and long headers are not kept).
const CODING_REGEXP = /^\s*([^\s;]+)\s*(?:;(.*))?$/;
const { parse: parseMediaList } = require('../content-type/v2');
const { ClearingMap } = require('../bounded/clearing-map');

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

// @fastify/accept-negotiator 2: one pass over the header, without a tokenizer. Spaces and tabs
// are skipped everywhere (a space inside a name starts the name again), `;` opens the q part,
// where `q` and `=` are skipped and digits and dots collected; any other character there ends
// the entry (with the q read so far) and starts the next name; `,` ends an entry. Each entry
// is offered to `offer(coding, q)`, which answers true to stop the scan.
function scanAcceptNegotiator(header, offer) {
  const BEGIN = 0;
  const NAME = 1;
  const QUALITY = 2;
  let state = BEGIN;
  let name = '';
  let quality = '';
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x20 || c === 0x09) continue;
    if (c === 0x3b /* ; */) {
      if (state === NAME) {
        state = QUALITY;
        quality = '';
      }
      continue;
    }
    if (c === 0x2c /* , */) {
      if (state === NAME) {
        if (offer(name, 1)) return;
      } else if (state === QUALITY) {
        if (offer(name, parseFloat(quality) || 0)) return;
        quality = '';
      }
      if (state !== BEGIN) name = '';
      state = BEGIN;
      continue;
    }
    if (state === QUALITY) {
      if (c === 0x71 /* q */ || c === 0x3d /* = */) continue;
      if (c === 0x2e /* . */ || (c >= 0x30 && c <= 0x39)) {
        quality += header[i];
        continue;
      }
      // any other character ends this entry and is the first of the next name
      if (offer(name, parseFloat(quality) || 0)) return;
      state = BEGIN;
      name = header[i];
      quality = '';
      continue;
    }
    if (state === NAME) {
      const before = header.charCodeAt(i - 1);
      if (before === 0x20 || before === 0x09) name = '';
    }
    state = NAME;
    name += header[i];
  }
  if (state === NAME) offer(name, 1);
  else if (state === QUALITY) offer(name, parseFloat(quality) || 0);
}

// @fastify/compress 9 over @fastify/accept-negotiator 2: `available` is the server's order.
function negotiateFastify(header, available) {
  // @fastify/compress reads `*` and `x-gzip` as gzip, after lower-casing the header
  return acceptNegotiator(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), available);
}

// @fastify/accept-negotiator 2's choice among `available` (the server's order): the highest q
// wins, ties go to the earlier available coding, q=0 and an unparsable q are skipped, and the
// first available coding at q=1 ends the scan. Undefined when none is acceptable. Also what
// @fastify/static picks a precompressed sibling with (lib/fastify/precompressed.js).
function acceptNegotiator(header, available) {
  if (!header || available.length === 0) return undefined;
  let best;
  let bestIndex = Infinity;
  let bestQ = 0;
  scanAcceptNegotiator(header, (coding, q) => {
    if (q === 0 || bestQ > q) return false;
    const index = available.indexOf(coding === '*' ? available[0] : coding);
    if (index === -1) return false;
    if (index === 0 && q === 1) {
      best = coding === '*' ? available[0] : coding;
      return true;
    }
    if (bestQ < q || bestIndex > index) {
      best = available[index];
      bestIndex = index;
      bestQ = q;
    }
    return false;
  });
  return best;
}

// hono's Accept parser (hono/utils/accept 4.13), reduced to what coding negotiation reads: each
// entry's type and its `q` (or `Q`) parameter. Whitespace is space, tab, CR and LF.
function isSpace(c) {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
function skipSpace(header, i) {
  while (i < header.length && isSpace(header.charCodeAt(i))) i++;
  return i;
}
function trimEnd(header, i) {
  while (i > 0 && isSpace(header.charCodeAt(i - 1))) i--;
  return i;
}
// past the next `;` (true: more parameters follow) or `,` (false), or the end
function skipParam(header, i) {
  for (; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x3b) return [i + 1, true];
    if (c === 0x2c) return [i + 1, false];
  }
  return [i, false];
}
// past the next `,` outside quotes, or the end
function skipEntry(header, i) {
  let quoted = false;
  for (; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (quoted && c === 0x5c) i++;
    else if (c === 0x22) quoted = !quoted;
    else if (!quoted && c === 0x2c) return i + 1;
  }
  return i;
}

// One `name=value` parameter from `start`: [next index, name, value, more parameters follow].
function readParam(header, start) {
  start = skipSpace(header, start);
  let i = start;
  let name;
  for (; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x3d) {
      name = header.slice(start, trimEnd(header, i));
      i++;
      break;
    }
    if (c === 0x3b) return [i + 1, undefined, undefined, true];
    if (c === 0x2c) return [i + 1, undefined, undefined, false];
  }
  if (name === undefined) return [i, undefined, undefined, false];
  i = skipSpace(header, i);
  if (header.charCodeAt(i) === 0x3d) {
    const [next, more] = skipParam(header, i + 1);
    return [next, name, undefined, more];
  }
  const valueStart = i;
  let quoted = false;
  for (; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (quoted && c === 0x5c) {
      i++;
    } else if (c === 0x22) {
      if (!quoted) {
        quoted = true;
        continue;
      }
      const after = skipSpace(header, i + 1);
      const next = header.charCodeAt(after);
      if (after < header.length && next !== 0x3b && next !== 0x2c) {
        const [skipped, more] = skipParam(header, after);
        return [skipped, name, undefined, more];
      }
      let value = header.slice(valueStart + 1, i);
      if (value.includes('\\')) value = value.replace(/\\(.)/g, '$1');
      if (next === 0x2c) return [after + 1, name, value, false];
      if (next === 0x3b) return [after + 1, name, value, true];
      return [after, name, value, false];
    } else if (!quoted && (c === 0x3b || c === 0x2c)) {
      return [i + 1, name, header.slice(valueStart, trimEnd(header, i)), c === 0x3b];
    }
  }
  return [i, name, header.slice(valueStart, trimEnd(header, i)), false];
}

// hono's parseQuality: absent or empty 1, 'NaN' 0, not a number 1, clamped to [0, 1]
function honoQuality(value) {
  if (value === undefined || value === '') return 1;
  if (value === 'NaN') return 0;
  const q = Number(value);
  if (Number.isNaN(q)) return 1;
  if (q < 0) return 0;
  return q > 1 ? 1 : q;
}

// The entries of an Accept-style header as hono reads them: [{ type, q }], sorted by q (highest
// first, stable) when some entry has a higher q than the one before it.
function parseHono(header) {
  const entries = [];
  let unsorted = false;
  let i = 0;
  while (i < header.length) {
    const start = skipSpace(header, i);
    let end = start;
    let stop = -1;
    for (; end < header.length; end++) {
      const c = header.charCodeAt(end);
      if (c === 0x3b || c === 0x2c) {
        stop = c;
        break;
      }
    }
    if (stop === -1) {
      const rest = header.slice(start, trimEnd(header, header.length));
      i = header.length;
      if (rest) push(rest, undefined, undefined);
      continue;
    }
    const type = header.slice(start, trimEnd(header, end));
    i = end + 1;
    if (stop === 0x2c) {
      if (type) push(type, undefined, undefined);
      continue;
    }
    if (!type) {
      i = skipEntry(header, i);
      continue;
    }
    let q;
    let Q;
    while (i < header.length) {
      const [next, name, value, more] = readParam(header, i);
      i = next;
      // hono keeps the last value of each name, and only non-empty values
      if (name && value) {
        if (name === 'q') q = value;
        else if (name === 'Q') Q = value;
      }
      if (!more) break;
    }
    push(type, q, Q);
  }
  if (unsorted) entries.sort((a, b) => b.q - a.q);
  return entries;

  function push(type, q, Q) {
    const entry = { type, q: honoQuality(q ?? Q) };
    if (entries.length > 0 && entries[entries.length - 1].q < entry.q) unsorted = true;
    entries.push(entry);
  }
}

// hono/compress 4.13's choice among `available` (its candidates, in order).
function negotiateHono(header, available) {
  const entries = parseHono(header);
  const wildcard = entries.find((e) => e.type === '*');
  let best;
  let bestQ = 0;
  for (const coding of available) {
    const named = entries.find((e) => e.type.toLowerCase() === coding);
    const q = named !== undefined ? named.q : wildcard !== undefined ? wildcard.q : 0;
    if (q === 1) return coding;
    if (q > 0 && (best === undefined || q > bestQ)) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/**
 * A function header -> the coding to use (one of `available`), or undefined when none is
 * acceptable. `flavour`: 'negotiator0' (compression 1.8), 'negotiator1' (koa-compress 5.2),
 * 'fastify-compress' (@fastify/compress 9: `available` in the server's order, `preferred`
 * unused) or 'hono-compress' (hono/compress 4.13: `available` are its candidates).
 */
function createNegotiator(available, preferred, flavour) {
  let negotiate;
  if (flavour === 'fastify-compress') negotiate = (header) => negotiateFastify(header, available);
  else if (flavour === 'hono-compress') negotiate = (header) => negotiateHono(header, available);
  else {
    const parse = flavour === 'negotiator1' ? parseQuoted : parsePlain;
    const compare = comparatorFor(preferred);
    negotiate = (header) => {
      const accepted = parseHeader(header, parse);
      const ranks = [];
      for (let i = 0; i < available.length; i++) {
        const rank = rankOf(available[i], i, accepted);
        if (rank.q > 0) ranks.push(rank);
      }
      ranks.sort(compare);
      return ranks.length > 0 ? ranks[0].coding : undefined;
    };
  }
  const remembered = new ClearingMap(MAX_REMEMBERED);

  return function choose(header) {
    if (typeof header !== 'string') header = header === undefined ? '' : String(header);
    if (header.length > MAX_REMEMBERED_LENGTH) return negotiate(header);
    let answer = remembered.get(header);
    if (answer === undefined) {
      answer = negotiate(header) || null;
      remembered.set(header, answer);
    }
    return answer === null ? undefined : answer;
  };
}

module.exports = { createNegotiator, acceptNegotiator };
