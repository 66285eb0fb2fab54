'use strict';
// The one reader of option names for every entry point. Each entry point declares its valid
// names as one list beside its defaults and calls one of these at the top of its factory:
//   ownOptions: ssr-native's own options (responseCache, criticalCss, the compression
//     dictionary, FileCache...): an unknown name is a TypeError listing the valid ones, as
//     SSR_NATIVE_REGISTER refuses an unknown part, since a typo there silently turns a feature off.
//   peerOptions: a drop-in's options, where the peer (compression, serve-static, koa-compress,
//     @fastify/static...) ignores names it does not know: one process warning per name, so a
//     drop-in never breaks an app that ran with the peer.
const warned = new Set();

// Levenshtein distance, bounded: names are short and lists small.
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}

/** The valid name a typo most likely meant (case aside, or at most 2 edits away), or null. */
function closest(name, valid) {
  const lower = name.toLowerCase();
  let best = null;
  let bestDistance = Infinity;
  for (const candidate of valid) {
    const d = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.min(2, Math.floor(name.length / 3)) || bestDistance === 0 ? best : null;
}

function unknownNames(options, valid) {
  if (options === null || typeof options !== 'object') return [];
  return Object.keys(options).filter((name) => !valid.includes(name));
}

function hint(name, valid) {
  const near = closest(name, valid);
  return near ? ` (did you mean "${near}"?)` : '';
}

/** Throws a TypeError for a name not in `valid`; `where` names the option object. */
function ownOptions(options, valid, where) {
  const unknown = unknownNames(options, valid);
  if (unknown.length === 0) return;
  const name = unknown[0];
  const err = new TypeError(`${where} has no option "${name}"${hint(name, valid)}; valid options: ${valid.join(', ')}`);
  err.code = 'ERR_SSR_NATIVE_UNKNOWN_OPTION';
  throw err;
}

/** Warns once per (where, name) for a name not in `valid`, which the peer would ignore. */
function peerOptions(options, valid, where) {
  for (const name of unknownNames(options, valid)) {
    const key = `${where}\0${name}`;
    if (warned.has(key)) continue;
    warned.add(key);
    process.emitWarning(`${where} ignores the unknown option "${name}"${hint(name, valid)}`, {
      code: 'SSR_NATIVE_UNKNOWN_OPTION',
    });
  }
}

module.exports = { ownOptions, peerOptions, closest };
