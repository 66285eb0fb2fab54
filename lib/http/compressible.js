'use strict';
// Whether a Content-Type is worth compressing: the `compressible` package's answer (what
// compression 1.8 and koa-compress 5.2 ask), from mime-db's `compressible` flag, else any text/*
// or +json/+text/+xml type. Remembered by header value (bounded), since a server sends few types.
const db = require('mime-db');
const { ClearingMap } = require('../bounded/clearing-map');

const FALLBACK_REGEXP = /^text\/|\+(?:json|text|xml)$/i;
const TYPE_REGEXP = /^\s*([^;\s]*)(?:;|\s|$)/;
const MAX_REMEMBERED = 256;
const remembered = new ClearingMap(MAX_REMEMBERED);

function lookup(type) {
  const match = TYPE_REGEXP.exec(type);
  const mime = match && match[1].toLowerCase();
  const entry = Object.prototype.hasOwnProperty.call(db, mime) ? db[mime] : undefined;
  if (entry && entry.compressible !== undefined) return entry.compressible;
  return FALLBACK_REGEXP.test(mime) || undefined;
}

/** true, false, or undefined (unknown type), as `compressible(type)` answers. */
function compressible(type) {
  if (!type || typeof type !== 'string') return false;
  if (type.length > 128) return lookup(type);
  let answer = remembered.get(type);
  if (answer === undefined && !remembered.has(type)) {
    answer = lookup(type);
    remembered.set(type, answer);
  }
  return answer;
}

module.exports = { compressible };
