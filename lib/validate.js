'use strict';
// Argument checks shared by every entry point: one message shape, "<name> must be <what>
// (received <value>)", and the error class Node itself would use.

function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `function ${value.name || '<anonymous>'}`;
  if (typeof value === 'object') {
    const ctor = value.constructor && value.constructor.name;
    return ctor ? `an instance of ${ctor}` : 'an object';
  }
  if (typeof value === 'string') {
    const shown = value.length > 28 ? `${value.slice(0, 25)}...` : value;
    return `type string (${JSON.stringify(shown)})`;
  }
  return `type ${typeof value} (${String(value)})`;
}

function invalidType(name, what, value) {
  return new TypeError(`${name} must be ${what} (received ${describe(value)})`);
}

function outOfRange(name, what, value) {
  return new RangeError(`${name} must be ${what} (received ${describe(value)})`);
}

module.exports = { describe, invalidType, outOfRange };
