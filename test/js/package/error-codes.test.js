'use strict';
// Every error lib/ throws that a user can catch carries a stable `code` (lib/validate.js): argument
// checks Node's ERR_INVALID_ARG_TYPE / ERR_INVALID_ARG_VALUE / ERR_OUT_OF_RANGE, anything else
// ERR_SSR_NATIVE_<WHAT>. Walks lib/: a `throw new <X>Error(` is allowed only where a drop-in
// throws its peer's error as the peer words it (listed below, by file and the message's start),
// so a new hand-written error without a code fails here.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const lib = path.join(__dirname, '..', '..', '..', 'lib');

// file (under lib/) -> the starts of the peer messages it throws
const PEER_MESSAGES = {
  'argon2/phc.js': [
    // @phc/format's, as the argon2 package throws them
    "'id must be",
    '`id must',
    "'version must",
    "'params must",
    '`params names',
    "'params values",
    '`params values',
    "'salt must",
    "'hash must",
    "'pchstr must",
    '`pchstr contains',
  ],
  'argon2/index.js': ["'Hash length", "'Memory cost", "'Time cost", "'Parallelism"], // the argon2 package's
  'content-type/index.js': [
    // content-type 1.0's
    'ERROR_MESSAGES[',
    "'content-type header",
    "'argument string",
    "'invalid parameter",
    "'invalid type'",
    "'argument obj",
  ],
  'content-type/v2.js': ['`Invalid parameter value', '`Invalid type', '`Invalid parameter name'], // content-type 2's
  'files/send-config.js': ["'dotfiles option", "name + ' must be array"], // send's
  'etag.js': ["'argument entity is required'"], // the etag package's
  'express/serve-static.js': ["'root path required'", "'root path must be a string'", "'option setHeaders"],
  'koa/send.js': ["'option setHeaders", "'option extensions"], // koa-send's
  'fastify/etag.js': ['`Algorithm'], // @fastify/etag's
  'fastify/compress.js': [
    // @fastify/compress's
    "'The `encodings`",
    "'The `requestEncodings`",
    "'None of the passed",
    '`Unsupported decompression',
    "'Unknown value for route",
  ],
  // Node's res.writeHead(status, headers) error for an odd headers array
  'http/held-response.js': ["'headers array is malformed'"],
};

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.name.endsWith('.js')) out.push(full);
  }
  return out;
}

// Every `throw new <X>Error(` in lib/: { file, line, message } (the message's source text, which
// may begin on the next line).
function hardWrittenThrows() {
  const found = [];
  for (const file of walk(lib)) {
    const rel = path.relative(lib, file).split(path.sep).join('/');
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/throw new (\w*Error)\(\s*/g)) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ file: rel, line, message: text.slice(m.index + m[0].length, m.index + m[0].length + 60) });
    }
  }
  return found;
}

test('every `throw new` in lib/ is a drop-in peer’s message; ours go through lib/validate.js', () => {
  const used = new Set();
  const unlisted = [];
  for (const t of hardWrittenThrows()) {
    const start = (PEER_MESSAGES[t.file] || []).find((s) => t.message.startsWith(s));
    if (start === undefined) unlisted.push(`lib/${t.file}:${t.line}: ${t.message}`);
    else used.add(`${t.file} ${start}`);
  }
  assert.deepEqual(unlisted, [], 'errors without a code (use invalidType, invalidValue, outOfRange or ownError)');
  for (const [file, starts] of Object.entries(PEER_MESSAGES)) {
    for (const start of starts) assert.ok(used.has(`${file} ${start}`), `lib/${file}: no longer throws ${start}`);
  }
});

test('the helpers: one wording, the class and code Node uses for argument checks', () => {
  const { invalidType, invalidValue, outOfRange, ownError } = require(path.join(lib, 'validate.js'));
  const cases = [
    [invalidType('options.x', 'a string', 5), TypeError, 'ERR_INVALID_ARG_TYPE'],
    [invalidValue('options.x', "'a' or 'b'", 'c'), TypeError, 'ERR_INVALID_ARG_VALUE'],
    [outOfRange('options.x', 'an integer >= 0', -1), RangeError, 'ERR_OUT_OF_RANGE'],
  ];
  for (const [err, ErrorClass, code] of cases) {
    assert.ok(err instanceof ErrorClass);
    assert.equal(err.code, code);
    assert.match(err.message, /^options\.x must be .+ \(received .+\)$/);
  }
  const own = ownError(Error, 'NOT_A_FOLDER', 'x: not a folder');
  assert.equal(own.code, 'ERR_SSR_NATIVE_NOT_A_FOLDER');
});

test('errors a user meets carry their code', async () => {
  const codeOf = (fn) => {
    try {
      fn();
    } catch (err) {
      return err.code;
    }
    return 'no error';
  };
  const { registerMetrics } = require(path.join(lib, 'metrics'));
  const { CriticalCss } = require(path.join(lib, 'express/critical-css'));
  const contentType = require(path.join(lib, 'content-type'));
  const { responseCache } = require(path.join(lib, 'express/cache'));
  const { inlinePrerendered } = require(path.join(lib, 'critical-css/prerender.js'));
  assert.equal(
    codeOf(() => registerMetrics({})),
    'ERR_INVALID_ARG_TYPE',
  );
  assert.equal(
    codeOf(() => registerMetrics(require('prom-client'), { prefix: '1x' })),
    'ERR_INVALID_ARG_VALUE',
  );
  assert.equal(
    codeOf(() => new CriticalCss({ browserDistFolder: __dirname, warm: false, maxPlans: 0 })),
    'ERR_OUT_OF_RANGE',
  );
  assert.equal(
    codeOf(() => new CriticalCss({ browserDistFolder: __dirname, warm: false, minify: 'yes' })),
    'ERR_INVALID_ARG_TYPE',
  );
  assert.equal(
    codeOf(() => contentType.configure({ scanner: 'fast' })),
    'ERR_INVALID_ARG_VALUE',
  );
  assert.equal(
    codeOf(() => responseCache({ allowedHosts: ['a b'] })),
    'ERR_INVALID_ARG_VALUE',
  );
  await assert.rejects(inlinePrerendered({ folder: __filename }), { code: 'ERR_SSR_NATIVE_NOT_A_FOLDER' });
});
