'use strict';
// ssr-native/content-type against the real content-type 1.0.5, over a large generated corpus:
// every result must be identical (shape, prototype, key order, values) and every error must be
// the same TypeError with the same message, with either scanner, cached or not.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { inspect } = require('node:util');

const reference = require('content-type');
const ours = require('../../../lib/content-type/index.js');
const { scanJs, scanNative } = require('../../../lib/content-type/scan.js');

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32: random } = require('../helpers/seeded-random');

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

// What a call did, in a form assert.deepStrictEqual can compare across implementations.
function outcome(fn, arg) {
  let result;
  try {
    result = fn(arg);
  } catch (err) {
    return { error: err.constructor.name, message: err.message };
  }
  if (typeof result !== 'object' || result === null) return { value: result };
  if (!result.parameters) return { object: result }; // format returns a non-string type as is
  return {
    constructor: result.constructor.name,
    keys: Object.keys(result),
    type: result.type,
    parametersPrototype: Object.getPrototypeOf(result.parameters),
    parameters: Object.entries(result.parameters),
  };
}

const TYPES = [
  'text/html',
  'TEXT/HTML',
  'application/json',
  'application/vnd.api+json',
  'image/svg+xml',
  "!#$%&'*+.^_`|~-/0aZ",
  'text',
  'text/',
  '/html',
  'text/html/x',
  'te xt/html',
  'text/ht"ml',
  'text/html\u0000',
  '\u00e9/x',
  'text/\u0100',
  '',
  'a/b',
  'A/B',
];
const SPACES = [
  '',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u000b',
  '\u000c',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u3000',
  '\u180e',
  '\u200b',
];
const NAMES = [
  'charset',
  'CharSet',
  'boundary',
  'q',
  'x',
  'X',
  '0',
  '123',
  'a-b',
  '!#$',
  'na me',
  'n@',
  '',
  '\u00e9',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
];
const VALUES = [
  'utf-8',
  'UTF-8',
  '1',
  '',
  '""',
  '"quoted value"',
  '"a\\"b"',
  '"a\\\\b"',
  '"\\a\\b"',
  '"\u00e9\u00ff"',
  '"\\\u00ff"',
  '"\u007f"',
  '"\\\u007f"',
  '"\u000b"',
  '"\t"',
  '"\\\t"',
  '"\u0100"',
  '"\\\u0100"',
  '"abc',
  '"abc\\"',
  '"abc"d',
  'a"b',
  '@',
  'a,b',
  '"a;b"',
  '"a=b"',
  '"\\"',
  '"\u0001"',
  '\u00e9',
  'tok\u0100',
  '"--WebKitFormBoundary7MA4YWxkTrZu0gW"',
];
const SEPARATORS = [';', '; ', ';  ', ' ;', ';\t', '\t;', ';;', ''];
const EQUALS = ['=', ' =', '= ', ' = ', '\t=', '=\t', ''];

// Each list starts with the pieces the grammar accepts (up to its "valid" count); the generator
// picks from those most of the time so that a good share of headers parse.
const VALID = new Map([
  [TYPES, 7],
  [SPACES, 12],
  [NAMES, 10],
  [VALUES, 14],
  [SEPARATORS, 4],
  [EQUALS, 4],
]);
function piece(rand, list) {
  return rand() < 0.85 ? list[Math.floor(rand() * VALID.get(list))] : pick(rand, list);
}

function generatedHeader(rand) {
  let header = piece(rand, SPACES) + piece(rand, TYPES) + piece(rand, SPACES);
  const count = Math.floor(rand() * 4);
  for (let i = 0; i < count; i++) {
    header += piece(rand, SEPARATORS) + piece(rand, NAMES) + piece(rand, EQUALS) + piece(rand, VALUES);
    if (rand() < 0.3) header += pick(rand, [' ', '  ', '\t', '']);
  }
  if (rand() < 0.1) header += pick(rand, [';', ' ', '\t', '\u00a0', '"', '\\']);
  return header;
}

// Random strings over the characters that matter to the grammar.
const ALPHABET = [
  'a',
  'Z',
  '0',
  '/',
  ';',
  '=',
  '"',
  '\\',
  ' ',
  '\t',
  '-',
  '+',
  '.',
  '@',
  ',',
  '\u000b',
  '\u007f',
  '\u0080',
  '\u00e9',
  '\u00ff',
  '\u0100',
  '\u2028',
  '\ufeff',
  '\ud800',
  '\u0000',
];
function randomString(rand) {
  let s = rand() < 0.5 ? 'text/plain' : '';
  const n = Math.floor(rand() * 20);
  for (let i = 0; i < n; i++) s += pick(rand, ALPHABET);
  return s;
}

function corpus() {
  const rand = random(0x5eed);
  const headers = new Set();
  for (let i = 0; i < 30000; i++) headers.add(generatedHeader(rand));
  for (let i = 0; i < 10000; i++) headers.add(randomString(rand));
  return [...headers];
}

const HEADERS = corpus();

function withSettings(settings, fn) {
  const before = ours.configure();
  try {
    ours.configure(settings);
    ours.clearCache();
    fn();
  } finally {
    ours.configure(before);
    ours.clearCache();
  }
}

function compareParse(inputs, label) {
  let valid = 0;
  for (const input of inputs) {
    const expected = outcome(reference.parse, input);
    if (!expected.error) valid++;
    assert.deepStrictEqual(outcome(ours.parse, input), expected, `${label}: ${inspect(input)}`);
  }
  return valid;
}

test('corpus reaches both valid and invalid headers', () => {
  const valid = HEADERS.filter((h) => !outcome(reference.parse, h).error).length;
  assert.ok(HEADERS.length > 30000, `corpus size ${HEADERS.length}`);
  assert.ok(valid > 3000 && valid < HEADERS.length - 3000, `valid: ${valid}`);
});

for (const scanner of ['js', 'native']) {
  test(`parse matches content-type 1.0.5 on the corpus (${scanner} scanner, uncached)`, () => {
    withSettings({ scanner, cacheSize: 0 }, () => compareParse(HEADERS, scanner));
  });

  test(`parse matches content-type 1.0.5 on the corpus (${scanner} scanner, cold then cached)`, () => {
    withSettings({ scanner, cacheSize: 1 << 16 }, () => {
      // First sighting: scanned, remembered; second: scanned and cached; third: cache hits.
      const valid = compareParse(HEADERS, `${scanner} cold`);
      assert.equal(ours.cacheStats().hits, 0);
      compareParse(HEADERS, `${scanner} admitted`);
      const { hits, misses, stores } = ours.cacheStats();
      // every parse that was not a hit is a miss: the first two passes, but for bypasses
      assert.equal(hits + misses + ours.cacheStats().bypasses, 2 * valid);
      compareParse(HEADERS, `${scanner} cached`);
      // This corpus is 40,000 look-alike headers, many with the same length and the same
      // characters at the sampled positions: they share first-sighting slots (a header then
      // waits for another sighting) and crowd buckets. A realistic working set is all cached
      // (tested below); here a majority suffices.
      assert.ok(stores > 0.5 * valid, `cached ${stores} of ${valid}`);
      const thirdPassHits = ours.cacheStats().hits - hits;
      assert.ok(thirdPassHits > 0.7 * stores, `third pass: ${thirdPassHits} hits of ${stores} cached`);
      assert.ok(valid > 3000);
    });
  });
}

test('every UTF-16 code unit in every position of the grammar', () => {
  const templates = [
    (c) => `${c}text/html`,
    (c) => `text/html${c}`,
    (c) => `te${c}xt/html`,
    (c) => `text/html${c}; a=b`,
    (c) => `a/b; x="${c}"`,
    (c) => `a/b; x="\\${c}"`,
    (c) => `a/b; x=${c}`,
    (c) => `a/b; ${c}=1`,
    (c) => `a/b;${c}x=1`,
    (c) => `a/b; x=1${c}`,
  ];
  withSettings({ cacheSize: 0 }, () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      for (const template of templates) {
        const header = template(c);
        const expected = outcome(reference.parse, header);
        const expectedJson = JSON.stringify(expected);
        for (const scanner of ['js', 'native']) {
          ours.configure({ scanner });
          const actual = outcome(ours.parse, header);
          // Compare as JSON first (fast; prototypes are null or not, which JSON shows as {} or
          // null) and in full only on a difference, for a readable failure.
          if (JSON.stringify(actual) !== expectedJson || actual.parametersPrototype !== expected.parametersPrototype) {
            assert.deepStrictEqual(actual, expected, `${scanner}: ${inspect(header)}`);
          }
        }
      }
    }
  });
});

test('both scanners give identical templates', () => {
  for (const header of HEADERS) {
    assert.deepStrictEqual(scanNative(header), scanJs(header), JSON.stringify(header));
  }
});

test('long headers and many parameters (cache bypass, native buffer growth)', () => {
  const many = 'a/b' + Array.from({ length: 40 }, (_, i) => `; p${i}="v\\"${i}"`).join('');
  const long = `text/plain; x="${'y'.repeat(5000)}"`;
  const longType = `${' '.repeat(300)}text/html${'\t'.repeat(300)}`;
  for (const scanner of ['auto', 'js', 'native']) {
    withSettings({ scanner }, () => {
      compareParse([many, long, longType, many, long, long + ';', many.replace('p39', 'p 39')], scanner);
      assert.ok(ours.cacheStats().bypasses >= 3);
      assert.equal(ours.cacheStats().size, 0);
    });
  }
});

test('request and response objects, and non-string arguments', () => {
  const headerValues = ['text/html; charset=utf-8', 'TEXT/plain', 'bad', '', undefined, null, 5, ['a/b'], {}];
  const inputs = [undefined, null, '', 0, 1, NaN, true, false, 42n, Symbol('s'), () => 'a/b', [], ['text/html'], {}];
  for (const value of headerValues) {
    inputs.push({ headers: { 'content-type': value } });
    inputs.push({ getHeader: (name) => (name === 'content-type' ? value : 'wrong/name') });
    inputs.push({ getHeader: 'not a function', headers: { 'content-type': value } });
  }
  inputs.push({ headers: null }, { headers: 'text/html' }, { headers: undefined }, { headers: {} });
  inputs.push({ getHeader: () => 'a/b', headers: { 'content-type': 'c/d' } });
  inputs.push(Object.assign(Object.create({ headers: { 'content-type': 'x/inherited' } }), {}));
  for (const scanner of ['js', 'native']) {
    withSettings({ scanner }, () => {
      compareParse(inputs, scanner);
      compareParse(inputs, `${scanner} again`);
    });
  }
});

test('results are fresh objects: mutating one never affects the cache', () => {
  const header = 'text/html; charset=utf-8; level=1';
  const first = ours.parse(header);
  first.type = 'mutated/type';
  first.parameters.charset = 'latin1';
  delete first.parameters.level;
  first.parameters.extra = 'x';
  const second = ours.parse(header);
  assert.deepStrictEqual(
    outcome(() => second, null),
    outcome(reference.parse, header),
  );
  assert.notStrictEqual(second, first);
  assert.notStrictEqual(second.parameters, first.parameters);
  // Express's setCharset: parse, set charset, format.
  const parsed = ours.parse('application/json');
  parsed.parameters.charset = 'utf-8';
  assert.equal(ours.format(parsed), 'application/json; charset=utf-8');
  assert.deepStrictEqual(Object.keys(ours.parse('application/json').parameters), []);
});

test('parameter keys keep JavaScript property order (integer-like names first)', () => {
  for (const header of ['a/b; z=1; 10=2; a=3; 2=4', 'a/b; b=1; a=2; B=3']) {
    assert.deepStrictEqual(outcome(ours.parse, header), outcome(reference.parse, header));
    assert.deepStrictEqual(outcome(ours.parse, header), outcome(reference.parse, header));
  }
});

// format: types, names and values of every kind, valid or not.
function formatInputs() {
  const rand = random(0xf0);
  const types = [
    'text/html',
    'TEXT/Html',
    'a/b',
    'text',
    'text/',
    'a/b/c',
    '',
    'te xt/html',
    '\u00e9/x',
    'a/\u0100',
    null,
    undefined,
    0,
    5,
    ['a/b'],
    { toString: () => 'x/y' },
    true,
  ];
  const names = ['charset', 'Charset', 'a', 'b', 'Z', '0', '10', '', 'na me', 'n"', '\u00e9', '\u0100', 'a/b'];
  const values = [
    'utf-8',
    '',
    'two words',
    'quote"d',
    'back\\slash',
    '\u00e9',
    '\u00ff',
    '\u0100',
    '\u007f',
    '\u000b',
    '\t',
    '\u0000',
    '\n',
    'a;b',
    '=',
    0,
    1.5,
    null,
    undefined,
    true,
    ['x', 'y'],
    { toString: () => 'obj' },
    'UTF-8',
    '"',
    '\\',
  ];
  const inputs = [undefined, null, 0, '', 'text/html', true, () => {}, [], {}];
  for (const type of types) {
    inputs.push({ type }, { type, parameters: null }, { type, parameters: 'str' }, { type, parameters: ['x'] });
  }
  for (let i = 0; i < 6000; i++) {
    const parameters = rand() < 0.1 ? Object.create(null) : {};
    const count = Math.floor(rand() * 4);
    for (let j = 0; j < count; j++) parameters[pick(rand, names)] = pick(rand, values);
    inputs.push({ type: rand() < 0.8 ? 'text/html' : pick(rand, types), parameters });
  }
  for (const code of [0, 9, 11, 31, 32, 34, 92, 126, 127, 128, 255, 256, 0x2028, 0xffff]) {
    const c = String.fromCharCode(code);
    inputs.push({ type: 'a/b', parameters: { v: `x${c}y` } }, { type: 'a/b', parameters: { [`n${c}`]: 'v' } });
  }
  return inputs;
}

test('format matches content-type 1.0.5', () => {
  const inputs = formatInputs();
  let errors = 0;
  for (const input of inputs) {
    const expected = outcome(reference.format, input);
    if (expected.error) errors++;
    assert.deepStrictEqual(outcome(ours.format, input), expected, String(input && input.type));
    assert.deepStrictEqual(outcome(ours.format, input), expected, 'second call');
  }
  assert.ok(errors > 100 && errors < inputs.length - 1000, `errors: ${errors}`);
  // A Symbol value or type: the same native TypeError from ToString.
  for (const input of [{ type: Symbol('t') }, { type: 'a/b', parameters: { s: Symbol('v') } }]) {
    assert.deepStrictEqual(outcome(ours.format, input), outcome(reference.format, input));
  }
});

// A Proxy that records every operation, to hold format to the package's order of reads and
// checks (which matters when a getter throws or has side effects).
function traced(target, log) {
  return new Proxy(target, {
    get(t, key) {
      log.push(`get ${String(key)}`);
      const value = t[key];
      if (value === 'THROW') throw new Error(`getter ${String(key)}`);
      return value;
    },
    ownKeys(t) {
      log.push('ownKeys');
      return Reflect.ownKeys(t);
    },
    getOwnPropertyDescriptor(t, key) {
      log.push(`descriptor ${String(key)}`);
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
  });
}

test('format reads and checks in the same order as the package (cold and cached)', () => {
  const cases = [
    ['text/html', { charset: 'utf-8', b: 'x' }],
    ['bad type', { charset: 'THROW' }],
    ['text/html', { 'a b': 'THROW', c: 'x' }],
    ['text/html', { a: 'THROW', b: 'x' }],
    ['text/html', { a: 'ok', b: 'bad\u0100', c: 'THROW' }],
    ['text/html', { z: 'last', a: 'first' }],
  ];
  for (let round = 0; round < 3; round++) {
    for (const [type, params] of cases) {
      const expectedLog = [];
      const actualLog = [];
      const expected = outcome(reference.format, { type, parameters: traced({ ...params }, expectedLog) });
      const actual = outcome(ours.format, { type, parameters: traced({ ...params }, actualLog) });
      assert.deepStrictEqual(actual, expected, `${type} ${JSON.stringify(params)}`);
      assert.deepStrictEqual(actualLog, expectedLog, `${type} ${JSON.stringify(params)} round ${round}`);
    }
  }
});

test('format round-trips what parse returns', () => {
  for (const header of HEADERS) {
    const expected = outcome((h) => reference.format(reference.parse(h)), header);
    assert.deepStrictEqual(
      outcome((h) => ours.format(ours.parse(h)), header),
      expected,
      JSON.stringify(header),
    );
  }
});

test('configure validates and reports its settings', () => {
  const before = ours.configure();
  assert.deepStrictEqual(before, { cacheSize: 1024, scanner: 'auto' });
  assert.throws(() => ours.configure({ cacheSize: -1 }), RangeError);
  assert.throws(() => ours.configure({ cacheSize: 1.5 }), RangeError);
  assert.throws(() => ours.configure({ scanner: 'wasm' }), TypeError);
  assert.throws(() => ours.configure(null), TypeError);
  assert.deepStrictEqual(ours.configure({ cacheSize: 0 }), { cacheSize: 0, scanner: 'auto' });
  assert.deepStrictEqual(ours.configure({ scanner: 'native' }), { cacheSize: 0, scanner: 'native' });
  assert.deepStrictEqual(ours.configure({ scanner: 'js' }), { cacheSize: 0, scanner: 'js' });
  assert.throws(() => ours.configure({ scanner: 'toString' }), TypeError);
  ours.parse('text/html');
  assert.equal(ours.cacheStats().size, 0);
  ours.configure(before);
});

test('a realistic working set is served entirely from the cache', () => {
  const hot = [];
  for (const type of [
    'text/html',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/javascript',
    'image/png',
    'text/css',
    'application/xml',
  ]) {
    hot.push(type, `${type}; charset=utf-8`, `${type}; charset=UTF-8`, `${type};charset=utf-8`);
  }
  for (let i = 0; i < 20; i++)
    hot.push(`multipart/form-data; boundary=----WebKitFormBoundary${i.toString(36).padStart(16, 'x')}`);
  withSettings({}, () => {
    for (const h of hot) ours.parse(h);
    for (const h of hot) ours.parse(h);
    const before = ours.cacheStats();
    for (let round = 0; round < 5; round++) for (const h of hot) ours.parse(h);
    const after = ours.cacheStats();
    assert.equal(after.hits - before.hits, 5 * hot.length);
    assert.equal(after.misses, before.misses);
  });
});

test('the cache never holds more than its capacity', () => {
  withSettings({ cacheSize: 100 }, () => {
    for (let i = 0; i < 10000; i++) {
      ours.parse(`text/x-${i}`);
      assert.ok(ours.cacheStats().size <= 100);
    }
    // A header used on every request survives a flood of distinct ones.
    const hot = 'application/json; charset=utf-8';
    ours.parse(hot);
    ours.parse(hot);
    const { hits } = ours.cacheStats();
    for (let i = 0; i < 10000; i++) {
      ours.parse(hot);
      ours.parse(`text/flood-${i}`);
    }
    assert.equal(ours.cacheStats().hits - hits, 10000);
  });
});

test('300,000 distinct headers grow heap + external memory by less than 16 MB', (t) => {
  const script = `
    const ct = require(${JSON.stringify(path.join(__dirname, '../../../lib/content-type/index.js'))});
    const mem = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };
    for (let i = 0; i < 2000; i++) ct.parse('text/warm-' + i);
    const before = mem();
    for (let i = 0; i < 300000; i++) {
      ct.parse('application/x-' + i + '; charset=utf-' + i + '; boundary="b ' + i + '"; p' + i + '=' + i);
      ct.format({ type: 'text/x' + i, parameters: { charset: 'c' + i } });
    }
    const after = mem();
    console.log(JSON.stringify({ growth: after - before, size: ct.cacheStats().size }));
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const { growth, size } = JSON.parse(child.stdout);
  t.diagnostic(`heap + external growth: ${(growth / 1048576).toFixed(2)} MB, cache entries: ${size}`);
  assert.ok(size <= 1024, `cache size ${size}`);
  assert.ok(growth < 16 * 1024 * 1024, `grew by ${(growth / 1048576).toFixed(2)} MB`);
});

test('package entry points: ssr-native/content-type (CommonJS and ESM) and ssr-native/register', async () => {
  const cjs = require('ssr-native/content-type');
  assert.equal(cjs, ours);
  const esm = await import('ssr-native/content-type');
  for (const name of ['parse', 'format', 'configure', 'cacheStats', 'clearCache']) assert.equal(esm[name], cjs[name]);
  assert.equal(esm.default, cjs);
  // The ESM entry of register installs the same hook as the CommonJS one (in a child process,
  // so this test process keeps the real content-type).
  const child = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import r from 'ssr-native/register'; import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/'); console.log(JSON.stringify({ ours: typeof require('content-type').cacheStats, replacement: r.replacement }));",
    ],
    { cwd: path.join(__dirname, '..', '..', '..'), encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.equal(out.ours, 'function');
  assert.equal(out.replacement, require.resolve('../../../lib/content-type/index.js'));
});

test('both scanners work in several worker threads at once, and a worker can be terminated mid-parse', async () => {
  const { Worker } = require('node:worker_threads');
  const file = require.resolve('../../../lib/content-type/index.js');
  const source = `
    const { parentPort, workerData } = require('worker_threads');
    const ct = require(workerData.file);
    ct.configure({ scanner: workerData.scanner });
    const out = [];
    for (let i = 0; i < 2000; i++) {
      const r = ct.parse('Text/HTML; Charset="utf-' + (i % 7) + '"; q=' + i);
      out.push(ct.format(r));
    }
    parentPort.postMessage(out);
    if (workerData.spin) for (;;) ct.parse('application/x-' + Math.random() + '; a=b');
  `;
  const run = (scanner, spin) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(source, { eval: true, workerData: { file, scanner, spin } });
      worker.once('message', (out) => {
        if (spin) worker.terminate().then(() => resolve(out), reject);
        else resolve(out);
      });
      worker.once('error', reject);
    });
  const results = await Promise.all([run('native', false), run('js', false), run('native', true), run('native', true)]);
  const expected = Array.from({ length: 2000 }, (_, i) =>
    reference.format(reference.parse('Text/HTML; Charset="utf-' + (i % 7) + '"; q=' + i)),
  );
  for (const out of results) assert.deepStrictEqual(out, expected);
});

test("'auto' falls back to the JavaScript scanner when the addon cannot be loaded", () => {
  const script = `
    const nativePath = require.resolve(${JSON.stringify(path.join(__dirname, '../../../lib/native.js'))});
    const err = Object.assign(new Error('not built'), { code: 'ERR_SSR_NATIVE_NOT_BUILT' });
    require.cache[nativePath] = { id: nativePath, filename: nativePath, loaded: true, get exports() { throw err; } };
    const ct = require(${JSON.stringify(path.join(__dirname, '../../../lib/content-type/index.js'))});
    const long = 'text/plain; x="' + 'y'.repeat(400) + '"';
    const a = ct.parse(long);
    const b = ct.parse('text/html; charset=utf-8');
    let nativeError = null;
    ct.configure({ scanner: 'native' });
    try { ct.parse(long + ' '); } catch (e) { nativeError = e.code; }
    console.log(JSON.stringify({ x: a.parameters.x.length, charset: b.parameters.charset, nativeError }));
  `;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.deepStrictEqual(JSON.parse(child.stdout), {
    x: 400,
    charset: 'utf-8',
    nativeError: 'ERR_SSR_NATIVE_NOT_BUILT',
  });
});
