'use strict';
// The errors of ssr-native's own code, one wording and a stable `code` each (drop-ins throw their
// peer's errors as the peer words them):
// - argument checks: "<name> must be <what> (received <value>)", with the class and code Node
//   itself uses: invalidType (TypeError, ERR_INVALID_ARG_TYPE), invalidValue (TypeError,
//   ERR_INVALID_ARG_VALUE: the right type, a value not accepted), outOfRange (RangeError,
//   ERR_OUT_OF_RANGE);
// - anything else: ownError(Class, WHAT, message), code ERR_SSR_NATIVE_<WHAT>.

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

function coded(err, code) {
  err.code = code;
  return err;
}

function invalidType(name, what, value) {
  return coded(new TypeError(`${name} must be ${what} (received ${describe(value)})`), 'ERR_INVALID_ARG_TYPE');
}

function invalidValue(name, what, value) {
  return coded(new TypeError(`${name} must be ${what} (received ${describe(value)})`), 'ERR_INVALID_ARG_VALUE');
}

function outOfRange(name, what, value) {
  return coded(new RangeError(`${name} must be ${what} (received ${describe(value)})`), 'ERR_OUT_OF_RANGE');
}

/** An error that is not an argument check: `what` in upper snake case names it in the code. */
function ownError(ErrorClass, what, message) {
  return coded(new ErrorClass(message), `ERR_SSR_NATIVE_${what}`);
}

module.exports = { describe, invalidType, invalidValue, outOfRange, ownError };
