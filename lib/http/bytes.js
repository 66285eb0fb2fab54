'use strict';
// `bytes.parse(value)` (the `bytes` package compression and koa-compress read their threshold
// with): a number as is, '1kb' / '1.5 MB' as bytes, '100' as 100, else null.
const UNITS = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, tb: 2 ** 40, pb: 2 ** 50 };
const SIZE_REGEXP = /^((-|\+)?(\d+(?:\.\d+)?)) *(kb|mb|gb|tb|pb)$/i;

function parseBytes(value) {
  if (typeof value === 'number' && !Number.isNaN(value)) return value;
  if (typeof value !== 'string') return null;
  const match = SIZE_REGEXP.exec(value);
  let amount;
  let unit = 'b';
  if (match) {
    amount = parseFloat(match[1]);
    unit = match[4].toLowerCase();
  } else {
    amount = parseInt(value, 10);
  }
  if (Number.isNaN(amount)) return null;
  return Math.floor(UNITS[unit] * amount);
}

module.exports = { parseBytes };
