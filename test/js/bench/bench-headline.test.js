'use strict';
// The default `npm run bench` runs one headline case per piece: every scenario that declares a
// `headline` names a case it really has (so the default run cannot silently run nothing for it),
// the headline scenarios cover every piece the README's summary promises, and the runner's
// time-left estimate reuses what a scenario took last time in the same mode and selection,
// else what its cases' timing implies (only the headline case in a headline run).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { estimateSeconds } = require('../../../bench/http/lib/progress');
const { httpTiming } = require('../../../bench/http/lib/modes');

const dir = path.join(__dirname, '..', '..', '..', 'bench', 'http', 'scenarios');
const scenarios = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => require(path.join(dir, f)));

// Declarative cases without calling a getter (the Angular scenario builds its fixture on access).
function plainCases(s) {
  const own = Object.getOwnPropertyDescriptor(s, 'cases');
  return own && typeof own.get !== 'function' ? s.cases : null;
}

test("bench headline: every declared headline names one of its scenario's cases", () => {
  for (const s of scenarios.filter((x) => x.headline)) {
    assert.equal(typeof s.headline, 'string', `${s.name}: headline must be a case name`);
    const cases = plainCases(s);
    if (cases)
      assert.ok(
        cases.some((c) => c.name === s.headline && !c.fullOnly),
        `${s.name}: no case named ${JSON.stringify(s.headline)} outside --full`,
      );
  }
});

test('bench headline: the default run has a case for every piece', () => {
  const names = new Set(scenarios.filter((s) => s.headline).map((s) => s.name));
  const pieces = ['etag', 'content-type', 'express-static', 'koa-static', 'argon2', 'angular'];
  pieces.push('compression', 'ssr-cache', 'fastify-static', 'hono-static');
  for (const piece of pieces) {
    assert.ok(names.has(piece), `${piece} declares no headline case`);
  }
});

test("bench progress: the estimate is last time's duration in the same mode and selection", () => {
  const s = scenarios.find((x) => x.name === 'express-static');
  const previous = {
    mode: 'default',
    selection: 'headline',
    scenarios: [{ name: 'express-static', status: 'ok', seconds: 42 }],
  };
  assert.equal(estimateSeconds(s, { mode: 'default', headlineOnly: true, names: [] }, previous), 42);
  // another mode or selection: not reused
  const fromTiming = estimateSeconds(s, { mode: 'quick', headlineOnly: true, names: [] }, previous);
  assert.notEqual(fromTiming, 42);
  const all = estimateSeconds(s, { mode: 'default', headlineOnly: false, names: [] }, previous);
  assert.notEqual(all, 42);
});

test('bench progress: without a previous run, a headline run estimates its headline case alone', () => {
  const s = scenarios.find((x) => x.name === 'express-static');
  const one = s.cases.find((c) => c.name === s.headline);
  const t = httpTiming('default', s, one);
  const variants = one.variants.filter((v) => !v.fullOnly).length;
  const headline = estimateSeconds(s, { mode: 'default', headlineOnly: true, names: [] }, null);
  assert.equal(headline, variants * (1 + t.warmupSeconds + t.rounds * t.seconds));
  const every = estimateSeconds(s, { mode: 'default', headlineOnly: false, names: [] }, null);
  assert.ok(every > headline, `all cases (${every} s) must take longer than the headline case (${headline} s)`);
  // a getter's cases are never touched: a flat guess or the scenario's own estimate
  const angular = scenarios.find((x) => x.name === 'angular');
  assert.equal(typeof estimateSeconds(angular, { mode: 'default', headlineOnly: true, names: [] }, null), 'number');
});
