'use strict';
// Issue 14: static files rewritten while they are served (in place and by rename, cached and
// streamed) by a writer thread while 8 keep-alive clients fetch them with ranges now and then.
// Every answer must be whole and honest: no hang (3 s per request), no HTTP parse error, a cached
// 200's ETag is the tag of the bytes sent, a renamed-in file's body is one whole version, a body
// is exactly its Content-Length (a stream whose file shrank is cut off, never left hanging), and
// once the writes stop every file is served as on disk within 1 s. See helpers/static-churn.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const express = require('express');
const serveStatic = require('../../../lib/express/serve-static');
const { runChurn } = require('../helpers/static-churn');

function nodeHttp(options) {
  return (root) => {
    const mw = serveStatic(root, options);
    const handler = (req, res) =>
      mw(req, res, (err) => {
        res.statusCode = err ? err.status || 500 : 404;
        res.end();
      });
    handler.close = () => mw.close();
    handler.stats = () => mw.stats();
    return handler;
  };
}

function express5(options) {
  return (root) => {
    const mw = serveStatic(root, options);
    const app = express();
    app.use(mw);
    app.close = () => mw.close();
    app.stats = () => mw.stats();
    return app;
  };
}

for (const [name, handlerFor, seed] of [
  ['node:http', nodeHttp({ maxFileSize: 64 * 1024 }), 1],
  ['Express 5, stat sweep instead of inotify', express5({ maxFileSize: 64 * 1024, watch: false }), 2],
]) {
  test(`churn (${name}): no hung, garbled or mistagged response; files as on disk 1 s after the writes`, async (t) => {
    // 2.5 s of churn, longer (at most 10 s) until 150 whole answers and 150 writes were seen
    const {
      counts,
      failures,
      seed: used,
    } = await runChurn(handlerFor, { ms: 2500, maxMs: 10000, minAnswers: 150, clients: 8, seed });
    t.diagnostic(`seed ${used}: ${JSON.stringify(counts)}`);
    assert.deepEqual(failures, [], `seed ${used}: ${JSON.stringify(counts)}`);
    assert.equal(counts.hangs, 0);
    assert.equal(counts.parseErrors, 0);
    // the churn really happened: files were rewritten while answers were being made
    assert.ok(counts.writes >= 50, `only ${counts.writes} writes`);
    assert.ok(counts.ok >= 50, `only ${counts.ok} whole answers`);
  });
}
