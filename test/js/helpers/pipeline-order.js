'use strict';
// What the mount-order tests (test/js/http/pipeline-order-*.test.js) share: every order of a
// framework's pieces, the seeded page and its inlined form (the reference every order must give),
// and what of an answer is compared.
const test = require('node:test');
const { CriticalCss } = require('../../../lib/express/critical-css');
const { decode } = require('./http2');
const { makeDistFolder, bootstrapPage } = require('./critical-css-pages');
const { mulberry32 } = require('./seeded-random');

// what browsers send (Chrome's dcb and dcz aside: no dictionary here)
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** Every order of `list`. */
function permutations(list) {
  if (list.length <= 1) return [list];
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const rest = list.slice(0, i).concat(list.slice(i + 1));
    for (const tail of permutations(rest)) out.push([list[i], ...tail]);
  }
  return out;
}

/**
 * The run's seed (PIPELINE_ORDER_SEED replays one), the page's row count drawn from it, and the
 * line a failure names them in. `dist` (the stylesheet's folder), `page` and `inlined` (latin1
 * text): the reference, removed after the file's tests.
 */
function seededPage() {
  const seed = Number(process.env.PIPELINE_ORDER_SEED ?? Math.floor(Math.random() * 2 ** 32));
  const rows = 20 + Math.floor(mulberry32(seed)() * 60);
  const dist = makeDistFolder();
  test.after(() => dist.remove());
  const reference = new CriticalCss({ browserDistFolder: dist.dir, memoPages: 0, name: 'reference' });
  test.after(() => reference.close());
  const page = bootstrapPage('everyone', rows);
  const inlined = reference.processSync(Buffer.from(page)).toString('latin1');
  return { seed, rows, input: `seed ${seed} (PIPELINE_ORDER_SEED=${seed}), ${rows} rows`, dist, page, inlined };
}

/** The decoded body as latin1 text, or a line that says why it does not decode. */
function bodyOf(answer) {
  if (answer.body.length === 0) return '';
  try {
    return decode(answer).toString('latin1');
  } catch (err) {
    return `undecodable (${answer.headers['content-encoding']}, ${answer.body.length} bytes): ${err.message}`;
  }
}

/** What is compared of an answer; `cached`: also whether it came from a cache (an Age header). */
function answerOf(answer, cached = false) {
  const compared = {
    status: answer.status,
    'content-encoding': answer.headers['content-encoding'],
    vary: answer.headers.vary,
    etag: answer.headers.etag,
    'set-cookie': answer.headers['set-cookie'] === undefined ? undefined : String(answer.headers['set-cookie']),
    body: bodyOf(answer),
  };
  if (cached) compared.fromCache = answer.headers.age !== undefined;
  return compared;
}

const styleBlocks = (body) => body.split('<style').length - 1;

module.exports = { BROWSER_ACCEPT_ENCODING, permutations, seededPage, bodyOf, answerOf, styleBlocks };
