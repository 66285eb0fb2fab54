'use strict';
// lib/http/authority.js against a reference built from RFC 3986's ABNF (3.2, 3.2.2, 3.2.3, and
// Appendix A's IPv6address, written out alternative by alternative, not derived from the parser),
// narrowed as the parser documents: no userinfo, reg-name of unreserved characters and not
// empty, no IPvFuture, a port of 1-5 digits up to 65535. A table of the spellings attacks use,
// then seeded random spellings built from the characters that matter.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseAuthority, isAuthority } = require('../../../lib/http/authority');
const { mulberry32 } = require('../helpers/seeded-random');

const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = `${DEC_OCTET}\\.${DEC_OCTET}\\.${DEC_OCTET}\\.${DEC_OCTET}`;
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|');
const REG_NAME = '[A-Za-z0-9\\-._~]+'; // unreserved only (RFC 3986 2.3), not empty
const REFERENCE = new RegExp(`^(\\[(?:${IPV6})\\]|${IPV4}|${REG_NAME})(?::([0-9]{1,5}))?$`);

function reference(text) {
  const m = REFERENCE.exec(text);
  if (m === null) return undefined;
  if (m[2] !== undefined && Number(m[2]) > 65535) return undefined;
  return { host: m[1], port: m[2] };
}

const TABLE = [
  ['victim.example', { host: 'victim.example', port: undefined }],
  ['VICTIM.example', { host: 'VICTIM.example', port: undefined }],
  ['victim.example.', { host: 'victim.example.', port: undefined }],
  ['victim.example:8443', { host: 'victim.example', port: '8443' }],
  ['victim.example:0', { host: 'victim.example', port: '0' }],
  ['victim.example:65535', { host: 'victim.example', port: '65535' }],
  ['127.0.0.1:80', { host: '127.0.0.1', port: '80' }],
  ['[::1]', { host: '[::1]', port: undefined }],
  ['[::1]:3000', { host: '[::1]', port: '3000' }],
  ['[2001:db8::7]', { host: '[2001:db8::7]', port: undefined }],
  ['[::ffff:192.0.2.1]:80', { host: '[::ffff:192.0.2.1]', port: '80' }],
  ['[1:2:3:4:5:6:7:8]', { host: '[1:2:3:4:5:6:7:8]', port: undefined }],
  ['victim.example:1@evil.example', undefined],
  ['victim.example@evil.example', undefined],
  ['a@b@c', undefined],
  ['victim.example:65536', undefined],
  ['victim.example:99999', undefined],
  ['victim.example:000080', undefined],
  ['victim.example:', undefined],
  ['victim.example:8o', undefined],
  ['victim.example:+80', undefined],
  ['victim.example:-1', undefined],
  ['victim.example:80:80', undefined],
  ['victim.example, evil.example', undefined],
  ['victim.example,evil.example', undefined],
  [' victim.example', undefined],
  ['victim.example ', undefined],
  ['victim.example\t', undefined],
  ['victim.example\n', undefined],
  ['vic%74im.example', undefined],
  ['victim.example/evil', undefined],
  ['victim.example\\evil', undefined],
  ['victim.example?x', undefined],
  ['victim.example#x', undefined],
  ['victim.example;evil', undefined],
  ['', undefined],
  [':80', undefined],
  ['[::1', undefined],
  ['::1', undefined],
  ['[::1]x', undefined],
  ['[::1]:', undefined],
  ['[1:2:3:4:5:6:7:8:9]', undefined],
  ['[1::2::3]', undefined],
  ['[1:2:3:4:5:6:7::8]', undefined], // '::' stands for at least one group
  ['[1:2:3:4:5:6::1.2.3.4]', undefined],
  ['[1:2:3:4:5::1.2.3.4]', { host: '[1:2:3:4:5::1.2.3.4]', port: undefined }],
  ['[::1%25eth0]', undefined],
  ['[v1.fe]', undefined],
  ['[12345::]', undefined],
  ['[::256.0.0.1]', undefined],
  ['vïctim.example', undefined],
];

test('parseAuthority: the table of spellings, and the reference agrees with it', () => {
  for (const [text, expected] of TABLE) {
    assert.deepEqual(parseAuthority(text), expected, JSON.stringify(text));
    assert.deepEqual(reference(text), expected, `reference ${JSON.stringify(text)}`);
    assert.equal(isAuthority(text), expected !== undefined, `isAuthority ${JSON.stringify(text)}`);
  }
  for (const value of [undefined, null, 80, ['victim.example']]) {
    assert.equal(parseAuthority(value), undefined);
    assert.equal(isAuthority(value), false);
  }
});

const PIECES = [
  'victim',
  'example',
  'EVIL',
  '.',
  '.',
  ':',
  ':',
  '::',
  '@',
  '[',
  ']',
  '0',
  '1',
  '65535',
  '65536',
  '99999',
  '8443',
  'ffff',
  'db8',
  '192.0.2.1',
  '255',
  '256',
  ',',
  ' ',
  '\t',
  '%',
  '%2f',
  '/',
  '_',
  '-',
  '~',
  '+',
  ';',
  '=',
  '*',
  '#',
  '?',
  'é',
  '',
];

test('parseAuthority: 200,000 seeded random spellings agree with the RFC 3986 reference', () => {
  const seed = Number(process.env.SEED || 42);
  const random = mulberry32(seed);
  let valid = 0;
  for (let i = 0; i < 200_000; i++) {
    let text = random() < 0.3 ? '[' : '';
    const n = 1 + Math.floor(random() * 8);
    for (let j = 0; j < n; j++) text += PIECES[Math.floor(random() * PIECES.length)];
    const expected = reference(text);
    if (expected !== undefined) valid++;
    assert.deepEqual(parseAuthority(text), expected, `seed ${seed}, input ${JSON.stringify(text)}`);
    assert.equal(isAuthority(text), expected !== undefined, `isAuthority, seed ${seed}, input ${JSON.stringify(text)}`);
  }
  assert.ok(valid > 1000, `the generator reaches valid spellings too (${valid})`);
});
