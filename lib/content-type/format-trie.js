'use strict';
// format()'s cache for content-type 2.x (v2.js): a trie of Maps, type -> name1 -> value1 -> name2
// -> value2 ... -> FINISHED -> the header. Only strings that passed validation are ever stored, so
// a type, name or value found in the trie needs no validation, and a complete path returns the
// finished header without building it. Parameters keep their order (2.x does not sort), so the
// path is the parameters in Object.keys order.
//
// Bounded: strings of at most MAX_PART_LENGTH characters, at most MAX_PARAMETERS parameters, and
// the whole trie is dropped after `capacity` insertions (cheap and rare: servers format the same
// few headers over and over).
const FINISHED = Symbol('finished');
const MAX_PART_LENGTH = 64;
const MAX_PARAMETERS = 4;

class FormatTrie {
  constructor(capacity) {
    this.resize(capacity);
  }

  resize(capacity) {
    this._capacity = capacity;
    this.clear();
  }

  clear() {
    this._root = new Map();
    this._insertions = 0;
  }

  /** The node of a type (a validated string), or undefined. */
  root(type) {
    return this._root.get(type);
  }

  /** The finished header at the end of a path, or undefined. */
  finished(node) {
    return node === undefined ? undefined : node.get(FINISHED);
  }

  /** Stores a header made from validated strings (anything else is not stored). */
  set(type, names, values, header) {
    if (this._capacity === 0 || type.length > MAX_PART_LENGTH || names.length > MAX_PARAMETERS) return;
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      if (typeof value !== 'string' || value.length > MAX_PART_LENGTH) return;
      if (names[i].length > MAX_PART_LENGTH) return;
    }
    if (this._insertions >= this._capacity) this.clear();
    this._insertions++;
    let node = this._root.get(type);
    if (node === undefined) this._root.set(type, (node = new Map()));
    for (let i = 0; i < names.length; i++) {
      node = child(node, names[i]);
      node = child(node, values[i]);
    }
    node.set(FINISHED, header);
  }
}

function child(node, key) {
  let next = node.get(key);
  if (next === undefined) node.set(key, (next = new Map()));
  return next;
}

/**
 * `type; name=value; ...` in the order of `names`: each value as `quoted` has it, or quoted now
 * (by the caller's `quoteValue`) where the trie vouched for it and nothing was quoted.
 */
function joinParameters(type, names, values, quoted, quoteValue) {
  let header = type;
  for (let i = 0; i < names.length; i++) {
    // Values the trie vouched for are validated strings: quoting them again is pure.
    header += '; ' + names[i] + '=' + (quoted[i] === undefined ? quoteValue(values[i]) : quoted[i]);
  }
  return header;
}

module.exports = { FormatTrie, joinParameters };
