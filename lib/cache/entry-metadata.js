'use strict';
// A stored entry's fields other than its body, as JSON: how the memory store keeps an entry in
// its native slot and how the Redis store writes it. Fields that are undefined (no ETag, no
// Last-Modified) are left out, and read back as undefined.

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

function metadataText(entry) {
  const meta = {};
  for (const name of FIELDS) meta[name] = entry[name];
  return JSON.stringify(meta);
}

/** The entry fields in `text`, or undefined for anything that is not an entry's metadata. */
function parseMetadata(text) {
  let meta;
  try {
    meta = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (meta === null || typeof meta !== 'object' || typeof meta.key !== 'string' || typeof meta.status !== 'number')
    return undefined;
  return meta;
}

module.exports = { metadataText, parseMetadata };
