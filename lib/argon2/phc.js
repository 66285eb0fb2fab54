'use strict';
// PHC string format ($id$v=..$k=v,..$salt$hash), behaving like @phc/format 1.0 (which the
// argon2 package uses) for every input, including its error types and messages, so that
// malformed digests fail the same way. Written here; no code copied.

const ID = /^[a-z0-9-]{1,32}$/;
const PARAM_NAME = /^[a-z0-9-]{1,32}$/;
const PARAM_VALUE = /^[a-zA-Z0-9/+.-]+$/;
const B64_FIELD = /^([a-zA-Z0-9/+.-]+|)$/;
const DECIMAL = /^((-)?[1-9]\d*|0)$/;
const VERSION = /^v=(\d+)$/;

function b64(buffer) {
  // Unpadded standard base64.
  const text = buffer.toString('base64');
  const pad = text.indexOf('=');
  return pad === -1 ? text : text.slice(0, pad);
}

/**
 * serialize({ id, version?, params?, salt?, hash? }) -> '$id$v=..$k=v,..$salt$hash'.
 * `params` keys are written in insertion order; numbers become decimal strings and Buffers
 * unpadded base64. Mutates nothing.
 */
function serialize({ id, version, params, salt, hash }) {
  if (typeof id !== 'string') throw new TypeError('id must be a string');
  if (!ID.test(id)) throw new TypeError(`id must satisfy ${ID}`);
  let out = `$${id}`;
  if (version !== undefined) {
    if (typeof version !== 'number' || version < 0 || !Number.isInteger(version)) {
      throw new TypeError('version must be a positive integer number');
    }
    out += `$v=${version}`;
  }
  if (params !== undefined) {
    if (typeof params !== 'object' || params === null) {
      throw new TypeError('params must be an object');
    }
    const names = Object.keys(params);
    if (!names.every((name) => PARAM_NAME.test(name))) {
      throw new TypeError(`params names must satisfy ${PARAM_NAME}`);
    }
    const values = names.map((name) => {
      const value = params[name];
      if (typeof value === 'number') return value.toString();
      if (Buffer.isBuffer(value)) return b64(value);
      return value;
    });
    if (!values.every((value) => typeof value === 'string')) {
      throw new TypeError('params values must be strings');
    }
    if (!values.every((value) => PARAM_VALUE.test(value))) {
      throw new TypeError(`params values must satisfy ${PARAM_VALUE}`);
    }
    out += `$${names.map((name, i) => `${name}=${values[i]}`).join(',')}`;
  }
  if (salt !== undefined) {
    if (!Buffer.isBuffer(salt)) throw new TypeError('salt must be a Buffer');
    out += `$${b64(salt)}`;
    if (hash !== undefined) {
      if (!Buffer.isBuffer(hash)) throw new TypeError('hash must be a Buffer');
      out += `$${b64(hash)}`;
    }
  }
  return out;
}

function parseParams(text) {
  const params = {};
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=');
    if (eq === -1) throw new TypeError('params must be in the format name=value');
    params[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const names = Object.keys(params);
  if (!names.every((name) => PARAM_NAME.test(name))) {
    throw new TypeError(`params names must satisfy ${PARAM_NAME}`);
  }
  if (!names.every((name) => PARAM_VALUE.test(params[name]))) {
    throw new TypeError(`params values must satisfy ${PARAM_VALUE}`);
  }
  for (const name of names) {
    if (DECIMAL.test(params[name])) params[name] = parseInt(params[name], 10);
  }
  return params;
}

/**
 * deserialize('$id$v=..$k=v,..$salt$hash') -> { id, version?, params?, salt?, hash? }
 * (parameters in any order; decimal values become numbers; salt and hash Buffers).
 */
function deserialize(text) {
  if (typeof text !== 'string' || text === '') {
    throw new TypeError('pchstr must be a non-empty string');
  }
  if (text[0] !== '$') throw new TypeError('pchstr must contain a $ as first char');
  const fields = text.split('$').slice(1);
  const maxFields = VERSION.test(fields[1]) ? 5 : 4;
  if (fields.length > maxFields) {
    throw new TypeError(`pchstr contains too many fileds: ${fields.length}/${maxFields}`);
  }
  const id = fields.shift();
  if (!ID.test(id)) throw new TypeError(`id must satisfy ${ID}`);
  let version;
  if (VERSION.test(fields[0])) version = parseInt(VERSION.exec(fields.shift())[1], 10);

  let salt;
  let hash;
  if (B64_FIELD.test(fields[fields.length - 1])) {
    if (fields.length > 1 && B64_FIELD.test(fields[fields.length - 2])) {
      hash = Buffer.from(fields.pop(), 'base64');
    }
    salt = Buffer.from(fields.pop(), 'base64');
  }
  let params;
  if (fields.length > 0) params = parseParams(fields.pop());
  if (fields.length > 0) throw new TypeError(`pchstr contains unrecognized fileds: ${fields}`);

  const out = { id };
  if (version) out.version = version;
  if (params) out.params = params;
  if (salt) out.salt = salt;
  if (hash) out.hash = hash;
  return out;
}

module.exports = { serialize, deserialize };
