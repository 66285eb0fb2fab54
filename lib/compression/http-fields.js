'use strict';
// Two small header helpers the peers take from npm (`vary`, `bytes`), with the same answers.

// Adds Accept-Encoding to the response's Vary unless it is listed already or Vary is `*`
// (what `vary(res, 'Accept-Encoding')` does; the field name here is fixed and valid).
function varyAcceptEncoding(res) {
  const value = res.getHeader('Vary') || '';
  const header = Array.isArray(value) ? value.join(', ') : String(value);
  const names = header === '*' ? ['*'] : fieldNames(header.toLowerCase());
  if (names.includes('*')) {
    res.setHeader('Vary', '*');
    return;
  }
  if (names.includes('accept-encoding')) {
    if (header !== '') res.setHeader('Vary', header); // `vary` writes the joined value back
    return;
  }
  res.setHeader('Vary', header ? `${header}, Accept-Encoding` : 'Accept-Encoding');
}

// The comma list of a Vary value, each name trimmed of spaces before it and after its last
// non-space character (vary's tokenizer, which keeps inner spaces).
function fieldNames(header) {
  const names = [];
  let start = 0;
  let end = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x20) {
      if (start === end) start = end = i + 1;
    } else if (c === 0x2c) {
      names.push(header.substring(start, end));
      start = end = i + 1;
    } else {
      end = i + 1;
    }
  }
  names.push(header.substring(start, end));
  return names;
}

const UNITS = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, tb: 2 ** 40, pb: 2 ** 50 };
const SIZE_REGEXP = /^((-|\+)?(\d+(?:\.\d+)?)) *(kb|mb|gb|tb|pb)$/i;

// `bytes.parse(value)`: a number as is, '1kb' / '1.5 MB' as bytes, '100' as 100, else null.
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

module.exports = { varyAcceptEncoding, parseBytes };
