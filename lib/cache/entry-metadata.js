'use strict';
// A stored entry's fields other than its body, as JSON: how the memory store keeps an entry in
// its native slot and how the Redis store writes it. Fields that are undefined (no ETag, no
// Last-Modified) are left out, and read back as undefined.
//
// What comes back from Redis is checked field by field (storedEntry): anyone who can write to
// the store can put any bytes there, and an entry is sent to clients as it is read.
const { targetOf } = require('./key');
const { HOP_BY_HOP } = require('../http/hop-by-hop');

const FIELDS = [
  'key',
  'primary',
  'target',
  'varyNames',
  'status',
  'headers',
  'length',
  'etag',
  'lastModified',
  'tags',
  'storedAt',
  'freshUntil',
  'swrUntil',
  'sieUntil',
  'expiresAt',
  'size',
];

// RFC 9110 5.1: a field name is a token; the cache stores names lowercased (as node and Koa
// give them).
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
// RFC 9110 5.5: no CR, LF, NUL or other control character but HTAB (what node:http refuses).
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
// Never sent from a stored entry: hop-by-hop fields (RFC 9110 7.6.1), Set-Cookie (never shared,
// RFC 6265 8.5), the length (set from the stored body) and Age (computed on every hit).
const NEVER_STORED = new Set([...HOP_BY_HOP, 'set-cookie', 'content-length', 'age']);
// Bounds no entry the cache writes comes near (parseTags keeps 64 tags of 256 characters).
const MAX_HEADERS = 256;
const MAX_VALUES = 256;
const MAX_VARY = 64;
const MAX_TAGS = 64;
const MAX_TAG_LENGTH = 256;

function metadataText(entry) {
  const meta = {};
  for (const name of FIELDS) meta[name] = entry[name];
  return JSON.stringify(meta);
}

/** The value `text` holds as JSON, or undefined when it is not JSON (a store may hold any bytes). */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The entry fields in `text`, or undefined for anything that is not an entry's metadata. */
function parseMetadata(text) {
  const meta = parseJson(text);
  if (meta === null || typeof meta !== 'object' || typeof meta.key !== 'string' || typeof meta.status !== 'number')
    return undefined;
  return meta;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isTime = (value) => typeof value === 'number' && Number.isFinite(value);
const isValue = (value) => typeof value === 'string' && !INVALID_VALUE.test(value);
const optionalValue = (value) => value === undefined || isValue(value);

function stringList(value, max, valid) {
  if (!Array.isArray(value) || value.length > max) return false;
  for (const item of value) if (typeof item !== 'string' || !valid(item)) return false;
  return true;
}

/**
 * The headers a stored entry may be sent with, from its stored map: names that are tokens,
 * values (a string or strings) valid in HTTP, the never-stored fields and those the stored
 * Connection names dropped. undefined when the map is not one.
 */
function sendableHeaders(headers) {
  if (!isObject(headers)) return undefined;
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) return undefined;
  let dropped = NEVER_STORED;
  const connection = headers.connection;
  if (typeof connection === 'string' && connection !== '') {
    dropped = new Set(NEVER_STORED);
    for (const item of connection.split(',')) dropped.add(item.trim().toLowerCase());
  }
  const out = {};
  for (const name of names) {
    if (!FIELD_NAME.test(name) || name === '__proto__') return undefined;
    const value = headers[name];
    if (Array.isArray(value)) {
      if (value.length > MAX_VALUES || !value.every(isValue)) return undefined;
    } else if (!isValue(value)) {
      return undefined;
    }
    if (dropped.has(name) || name.startsWith('proxy-')) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The entry stored under `key`, from its metadata (parsed JSON) and its body bytes, checked as
 * data anyone could have written: every field present and of its type, the status an integer
 * from 200 to 599, the key the one asked for, the headers sendable (see sendableHeaders), the
 * length and size recomputed from the body. undefined for anything else.
 */
function storedEntry(meta, body, key) {
  if (!isObject(meta)) return undefined;
  const { primary, varyNames, status, tags } = meta;
  if (meta.key !== key || typeof primary !== 'string' || meta.target !== targetOf(primary)) return undefined;
  if (!stringList(varyNames, MAX_VARY, (name) => FIELD_NAME.test(name))) return undefined;
  // the key is the primary key and one \0-separated value per Vary name (key.js)
  if (!key.startsWith(primary) || key.slice(primary.length).split('\0').length !== varyNames.length + 1)
    return undefined;
  if (!Number.isInteger(status) || status < 200 || status > 599) return undefined;
  if ((status === 204 || status === 304) && body.length > 0) return undefined;
  if (!stringList(tags, MAX_TAGS, (tag) => tag.length > 0 && tag.length <= MAX_TAG_LENGTH)) return undefined;
  const { storedAt, freshUntil, swrUntil, sieUntil, expiresAt } = meta;
  if (![storedAt, freshUntil, swrUntil, sieUntil, expiresAt].every(isTime)) return undefined;
  if (!(storedAt <= freshUntil && freshUntil <= swrUntil && swrUntil <= expiresAt && sieUntil <= expiresAt))
    return undefined;
  if (!optionalValue(meta.etag) || !optionalValue(meta.lastModified)) return undefined;
  const headers = sendableHeaders(meta.headers);
  if (headers === undefined) return undefined;
  let headerBytes = 0;
  for (const name in headers) headerBytes += name.length + String(headers[name]).length + 4;
  for (const tag of tags) headerBytes += tag.length + 4;
  const size = body.length + 2 * key.length + headerBytes + 256;
  return {
    key,
    primary,
    target: meta.target,
    varyNames,
    status,
    headers,
    body,
    length: String(body.length),
    etag: meta.etag,
    lastModified: meta.lastModified,
    tags,
    storedAt,
    freshUntil,
    swrUntil,
    sieUntil,
    expiresAt,
    size: isTime(meta.size) && meta.size > size ? meta.size : size,
  };
}

module.exports = { metadataText, parseMetadata, parseJson, storedEntry, sendableHeaders, FIELD_NAME };
