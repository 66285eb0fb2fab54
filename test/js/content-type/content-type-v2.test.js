'use strict';
// ssr-native/content-type/v2 against the real content-type 2.1.0 (devDependency alias
// `content-type2`): generated headers (hostile ones included) under every option, Accept-style
// comma walks, non-string arguments, and generated format() inputs must give identical results
// and identical errors, every time (cold, admitted, cached), and a caller mutating a result must
// never change a later one. Seeded; a failure prints its input and seed.
const test = require('node:test');
const assert = require('node:assert/strict');
const ours = require('../../../lib/content-type/v2.js');
const theirs = require('content-type2');

const { mulberry32 } = require('../helpers/seeded-random');

function generator(seed) {
  const next = mulberry32(seed);
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  return { next, int, pick };
}

const SEED = Number(process.env.SEED || 20261130);

// Pieces headers are made of: the grammar's delimiters, tokens in both cases, whitespace that is
// and is not OWS, quoting, and code units beyond Latin-1 (lower-casing changes some: U+0130).
const PIECES = [
  'text',
  'HTML',
  'application',
  'json',
  'Vnd.API+JSON',
  'x',
  '*',
  'charset',
  'Charset',
  'CHARSET',
  'utf-8',
  'UTF-8',
  'q',
  '0.5',
  'boundary',
  '----WebKit',
  'a',
  'B',
  '1',
  '01',
  '__proto__',
  'constructor',
  '/',
  '/',
  ';',
  ';',
  ';',
  '=',
  '=',
  '"',
  '"',
  '\\',
  '\\"',
  ',',
  ',',
  ' ',
  ' ',
  '  ',
  '\t',
  '\r',
  '\n',
  '\v',
  '\f',
  '\u00a0',
  '\u0000',
  '\u007f',
  '\u00e9',
  '\u00ff',
  '\u0100',
  '\u0130',
  '\u212a',
  '\u2028',
  '\ud83d\ude00',
  '\ud800',
  '\udc00',
  '\ufeff',
];

function randomHeader(rng) {
  const shape = rng.int(4);
  if (shape === 0) {
    // Well formed, with parameters.
    let h = rng.pick(['text/html', 'Application/JSON', 'text/plain', 'multipart/form-data', 'a/b']);
    const n = rng.int(5);
    for (let i = 0; i < n; i++) {
      h += rng.pick([';', '; ', ' ;', ';\t']) + rng.pick(['charset', 'Charset', 'q', 'boundary', 'x', 'a']);
      h += rng.pick(['=', ' = ', '=\t']);
      h +=
        rng.int(2) === 0
          ? rng.pick(['utf-8', 'UTF-8', '0.5', '', 'a b'])
          : `"${rng.pick(['utf-8', 'a\\"b', 'a;b', 'a,b', '\\\\', ''])}"`;
    }
    return h;
  }
  if (shape === 1) {
    // An Accept-style list.
    const n = 1 + rng.int(5);
    const parts = [];
    for (let i = 0; i < n; i++) {
      parts.push(rng.pick(['text/html', '*/*', 'application/json;q=0.9', 'text/*; q="0.5"', 'a/b;x=",";y=1', '']));
    }
    return parts.join(rng.pick([',', ', ', ' ,', ',\t']));
  }
  // Anything: random pieces.
  const n = rng.int(shape === 2 ? 12 : 40);
  let h = '';
  for (let i = 0; i < n; i++) h += rng.pick(PIECES);
  return h;
}

function randomOptions(rng, header) {
  switch (rng.int(12)) {
    case 0:
      return undefined;
    case 1:
      return {};
    case 2:
      return { comma: true };
    case 3:
      return { parameters: false };
    case 4:
      return { comma: true, parameters: false };
    case 5:
      return { start: rng.int(header.length + 3) };
    case 6:
      return {
        comma: rng.pick([true, false, 1, 'true']),
        start: rng.int(header.length + 1),
        parameters: rng.pick([true, false, 0, undefined]),
      };
    case 7:
      return { start: rng.pick([-1, -5, 1.5, NaN, Infinity, '2', null, 2 ** 31, 0.0, -0]) };
    case 8:
      return null;
    default:
      return { comma: rng.int(2) === 0, start: rng.int(4) };
  }
}

// Everything observable about a parse result: own keys in order, values, the parameters' own
// keys in order and their values, and the parameters' prototype chain (an empty object whose
// prototype is null).
function describe(result) {
  const { parameters } = result;
  const proto = Object.getPrototypeOf(parameters);
  return {
    keys: Object.keys(result),
    type: result.type,
    index: result.index,
    parameterKeys: Object.keys(parameters),
    parameters: Object.entries(parameters),
    protoIsEmptyNullObject:
      proto !== null && Object.getPrototypeOf(proto) === null && Reflect.ownKeys(proto).length === 0,
  };
}

// What fn returns (described) or throws. With `mutate`, the result is then mutated the way
// callers do (setCharset, negotiator) and worse, after it was described.
function outcome(fn, mutate = false) {
  try {
    const value = fn();
    if (value === null || typeof value !== 'object') return { value };
    const described = describe(value);
    if (mutate) {
      value.type = 'mutated';
      value.index = -1;
      value.parameters.charset = 'mutated';
      value.parameters.extra = 'x';
      for (const name of Object.keys(value.parameters)) value.parameters[name] += '!';
    }
    return { value: described };
  } catch (err) {
    // JavaScriptCore (Bun) words engine TypeErrors after the source expression that failed
    // ("header.slice(a, b).toLowerCase is not a function. (In '...')"), which names the
    // implementation's own variables: there, compare only what is not a function.
    const message = process.versions.bun
      ? err.message.replace(/\. \(In '.*$/s, '').replace(/^.*\.(\w+) is not a function$/s, '$1 is not a function')
      : err.message;
    return { error: err.constructor.name, message };
  }
}

function show(value) {
  return JSON.stringify(value, (k, v) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol' || (typeof v === 'number' && !Number.isFinite(v))) return String(v);
    return v;
  });
}

test('parse: generated headers and options give the same results as content-type 2.1.0, cold and cached', () => {
  ours.clearCache();
  const rng = generator(SEED);
  // Hand-picked edges first: quoted values ending in an escape, unterminated, empty names and
  // values, delimiters inside quotes, repeated names, whitespace around everything.
  const headers = [
    'a/b; x="ab\\"',
    'a/b; x="ab\\',
    'a/b; x="\\"',
    'a/b; x="',
    'a/b; x=""',
    'a/b; x="a"b; y=1',
    'a/b;x="a;b";y="c,d"',
    'a/b; =v',
    'a/b; x=',
    'a/b; x',
    'a/b;;; x=1',
    'a/b; x=1; X=2',
    'a/b; x="1"; x=2',
    ' \tA/B \t; \tx \t= \t1 \t',
    'a/b, c/d; q=1',
    ',',
    ';',
    '=',
    '"',
    '',
    ' ',
    'a/b; x="a\\\\"',
    'a/b; x = "v" junk ; y=2',
  ];
  for (let i = 0; i < 4000; i++) headers.push(randomHeader(rng));
  // Each header several times with the same options: scanned, admitted, then from the cache;
  // and a mutation of every result in between, which must not leak into the next one.
  for (const header of headers) {
    const options = randomOptions(rng, header);
    const expected = outcome(() => theirs.parse(header, options));
    for (let round = 0; round < 3; round++) {
      const actual = outcome(() => ours.parse(header, options), true);
      assert.deepStrictEqual(actual, expected, `seed ${SEED} round ${round}: parse(${show(header)}, ${show(options)})`);
    }
  }
  const stats = ours.cacheStats();
  assert.ok(stats.hits > 2000, `cache hits ${stats.hits}: the cached path was exercised`);
});

test('parse: Accept-style comma walks (negotiator) match at every step', () => {
  const rng = generator(SEED + 1);
  for (let i = 0; i < 2000; i++) {
    const header = randomHeader(rng);
    for (let round = 0; round < 2; round++) {
      let index = 0;
      for (let step = 0; index < header.length && step < 100; step++) {
        const start = index;
        const options = { comma: true, start };
        const expected = describe(theirs.parse(header, options));
        assert.deepStrictEqual(
          describe(ours.parse(header, options)),
          expected,
          `seed ${SEED + 1}: parse(${show(header)}, ${show(options)})`,
        );
        index = expected.index + 1;
      }
    }
  }
});

test('parse: non-string headers and odd options fail or coerce exactly as content-type 2.1.0', () => {
  const headers = [undefined, null, 0, 5, true, {}, [], ['a/b'], { length: 3 }, Symbol('x'), 10n, 'text/html'];
  const options = [
    undefined,
    null,
    5,
    'x',
    { start: -2 },
    { start: '1' },
    { start: {} },
    { start: 1n },
    { comma: true, start: 2.7 },
    { start: Symbol('s') },
  ];
  for (const header of headers) {
    for (const option of options) {
      const expected = outcome(() => theirs.parse(header, option));
      assert.deepStrictEqual(
        outcome(() => ours.parse(header, option)),
        expected,
        `parse(${show(header)}, ${show(option)})`,
      );
    }
  }
  // -0 is kept as the index where nothing is scanned, as in the package (deepStrictEqual tells -0 from 0).
  for (const header of ['', '', 'a/b', 'a/b']) {
    for (const start of [0, -0, 0, -0, 3, 3]) {
      assert.deepStrictEqual(
        outcome(() => ours.parse(header, { start })),
        outcome(() => theirs.parse(header, { start })),
        `parse(${show(header)}, { start: ${Object.is(start, -0) ? '-0' : start} })`,
      );
    }
  }
  // Options are read in the package's order (comma, start, then parameters after the type).
  const reads = (impl) => {
    const log = [];
    const option = new Proxy({}, { get: (target, name) => (log.push(name), undefined) });
    impl.parse('a/b; c=d', option);
    return log;
  };
  assert.deepStrictEqual(reads(ours), reads(theirs));
});

function randomFormatInput(rng) {
  const types = [
    'text/html',
    'a/b',
    'application/vnd.api+json',
    'TEXT/Plain',
    'text',
    'text/',
    '/html',
    'a/b/c',
    'a b/c',
    '',
    'a/\u00e9',
    5,
    null,
    undefined,
    ['a/b'],
    { toString: () => 'x/y' },
  ];
  const names = ['charset', 'q', 'a', 'B', '1', 'a b', '', 'x=y', '\u00e9', 'boundary', '__proto__'];
  const values = [
    'utf-8',
    '',
    'a b',
    'a"b',
    'a\\b',
    '\t',
    '\u007f',
    '\u0000',
    '\u00ff',
    '\u0100',
    'x;y',
    5,
    1.5,
    -1,
    null,
    undefined,
    true,
    {},
    ['a', 'b'],
    [],
    'ok',
  ];
  const obj = { type: rng.pick(types) };
  const shape = rng.int(6);
  if (shape === 0) return obj;
  if (shape === 1) obj.parameters = rng.pick([null, 0, '', 'ab', 5, true, [], ['x']]);
  else {
    const parameters = rng.int(3) === 0 ? Object.create(null) : {};
    const n = rng.int(5);
    for (let i = 0; i < n; i++)
      parameters[rng.int(3) === 0 ? rng.pick(names) : rng.pick(['charset', 'q', 'a'])] = rng.pick(values);
    obj.parameters = parameters;
  }
  return obj;
}

test('format: generated objects give the same headers and the same errors as content-type 2.1.0', () => {
  const rng = generator(SEED + 2);
  for (let i = 0; i < 8000; i++) {
    const input = randomFormatInput(rng);
    const expected = outcome(() => theirs.format(input));
    // Twice: the second may come from format's cache.
    for (let round = 0; round < 2; round++) {
      assert.deepStrictEqual(
        outcome(() => ours.format(input)),
        expected,
        `seed ${SEED + 2}: format(${show(input)})`,
      );
    }
  }
  for (const input of [
    undefined,
    null,
    5,
    'a/b',
    { type: Symbol('t') },
    { type: 'a/b', parameters: { a: Symbol('v') } },
  ]) {
    assert.deepStrictEqual(
      outcome(() => ours.format(input)),
      outcome(() => theirs.format(input)),
      `format(${show(input)})`,
    );
  }
});

test('format keeps the parameters in their order, as parsed (setCharset round trip)', () => {
  for (const header of [
    'text/plain; b=2; a=1',
    'text/html; Charset="ISO-8859-1"; format=flowed',
    'a/b; x="a\\"b"; 2=two; 1=one',
  ]) {
    for (let round = 0; round < 3; round++) {
      const a = ours.parse(header);
      a.parameters.charset = 'utf-8';
      const b = theirs.parse(header);
      b.parameters.charset = 'utf-8';
      assert.equal(ours.format(a), theirs.format(b), header);
    }
  }
});

test('isTypeValid and isTokenValid behave as content-type 3.x', () => {
  // 3.x is ESM-only and not a dependency: the expected answers are its definition (RFC 9110
  // token, token "/" token) written out as regular expressions over every range.
  const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
  const TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
  const rng = generator(SEED + 3);
  for (let i = 0; i < 3000; i++) {
    let s = '';
    const n = rng.int(8);
    for (let j = 0; j < n; j++) s += rng.pick(['a', 'Z', '0', '/', '/', '-', ' ', '"', '\u00e9', '\u0100', '+', '.']);
    const start = rng.int(n + 1);
    const end = start + rng.int(n - start + 1);
    const part = s.slice(start, end);
    assert.equal(ours.isTokenValid(s, start, end), TOKEN.test(part), `isTokenValid(${show(s)}, ${start}, ${end})`);
    assert.equal(ours.isTypeValid(s, start, end), TYPE.test(part), `isTypeValid(${show(s)}, ${start}, ${end})`);
    assert.equal(ours.isTokenValid(s), TOKEN.test(s));
    assert.equal(ours.isTypeValid(s), TYPE.test(s));
  }
});

test('the caches stay bounded under a flood of distinct headers', () => {
  ours.clearCache();
  for (let i = 0; i < 20000; i++) {
    const header = `text/plain; id=${i}`;
    ours.parse(header);
    ours.parse(header); // second sighting: admitted
    ours.format({ type: 'text/plain', parameters: { id: String(i) } });
  }
  const stats = ours.cacheStats();
  assert.ok(stats.size <= stats.capacity, `size ${stats.size} <= capacity ${stats.capacity}`);
  assert.equal(stats.capacity, 1024);
  assert.deepStrictEqual(ours.configure({ cacheSize: 0 }), { cacheSize: 0 });
  assert.deepStrictEqual(describe(ours.parse('a/B; c=d')), describe(theirs.parse('a/B; c=d')));
  assert.equal(ours.cacheStats().size, 0);
  ours.configure({ cacheSize: 1024 });
  assert.throws(() => ours.configure({ cacheSize: -1 }), RangeError);
  assert.throws(() => ours.configure(null), TypeError);
});
