'use strict';
// The framework-neutral held pipeline (lib/http/pipeline.js) on its own: seeded random stage sets
// joined in random orders run in the documented order (place, then `last`, then join order, each
// stage once); a hit leaves out the stages up to the store's, whether they joined before or after
// it; promise-returning stages are awaited in turn; a throwing or rejecting stage stops the run and
// its error reaches the caller. A failure prints its seed and the joins.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Pipeline, PLACES, isAfterStore } = require('../../../lib/http/pipeline');
const { mulberry32 } = require('../helpers/seeded-random');

const SEEDS = 300;

// The documented order, written out here rather than read from the module: a place's rank, the
// `last` ones after the others within a place, then the order of each stage's first join.
function expectedOrder(joined, afterStore) {
  const seen = [];
  for (const stage of joined) if (!seen.includes(stage)) seen.push(stage);
  const kept = afterStore ? seen.filter((stage) => PLACES.indexOf(stage.place) > PLACES.indexOf('cache')) : seen;
  const key = (stage) => PLACES.indexOf(stage.place) * 2 + (stage.last ? 1 : 0);
  return kept
    .map((stage, index) => ({ stage, index }))
    .sort((a, b) => key(a.stage) - key(b.stage) || a.index - b.index)
    .map((entry) => entry.stage.name);
}

// `count` stages with random places and `last`, each recording its name on the target when run;
// `async` decides per stage whether it answers with a promise.
function randomStages(random, count, async) {
  const stages = [];
  for (let i = 0; i < count; i++) {
    const place = PLACES[Math.floor(random() * PLACES.length)];
    const last = random() < 0.3;
    const name = `s${i}:${place}${last ? ':last' : ''}`;
    const delayed = async(random);
    stages.push({
      name,
      place,
      last,
      delayed,
      run(target, pipeline) {
        assert.ok(pipeline instanceof Pipeline, 'a stage is handed the pipeline');
        if (!delayed) {
          target.ran.push(name);
          return undefined;
        }
        return new Promise((resolve) =>
          setImmediate(() => {
            target.ran.push(name);
            resolve();
          }),
        );
      },
    });
  }
  return stages;
}

// Joins a random sequence (some stages twice); with `hit`, enterAfterStore() at a random point of
// it (before the first join, between two, or after the last).
function joinRandomly(random, pipeline, stages, hit) {
  const joins = [];
  const order = stages.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const stage of order) {
    joins.push(stage);
    if (random() < 0.2) joins.push(order[Math.floor(random() * order.length)]);
  }
  const hitAt = hit ? Math.floor(random() * (joins.length + 1)) : -1;
  const log = [];
  joins.forEach((stage, i) => {
    if (i === hitAt) {
      pipeline.enterAfterStore();
      log.push('HIT');
    }
    pipeline.use(stage);
    log.push(stage.name);
  });
  if (hitAt === joins.length) {
    pipeline.enterAfterStore();
    log.push('HIT');
  }
  return { joins, log };
}

test('random stage sets, joined in random orders, run in the documented order, each once', () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const random = mulberry32(seed);
    const stages = randomStages(random, 1 + Math.floor(random() * 8), () => false);
    const pipeline = new Pipeline();
    const { joins, log } = joinRandomly(random, pipeline, stages, false);
    const target = { ran: [] };
    assert.equal(pipeline.run(target), undefined, `seed ${seed}: no stage waited, so run() is synchronous`);
    assert.deepEqual(target.ran, expectedOrder(joins, false), `seed ${seed}, joins ${log.join(', ')}`);
  }
});

test('a hit leaves out the stages up to the store, joined before or after it', () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const random = mulberry32(seed);
    const stages = randomStages(random, 1 + Math.floor(random() * 8), () => false);
    const pipeline = new Pipeline();
    const { joins, log } = joinRandomly(random, pipeline, stages, true);
    const target = { ran: [] };
    pipeline.run(target);
    const expected = expectedOrder(joins, true);
    assert.deepEqual(target.ran, expected, `seed ${seed}, joins ${log.join(', ')}`);
    for (const stage of pipeline.stages) assert.ok(isAfterStore(stage), `seed ${seed}: ${stage.name} kept on a hit`);
  }
});

test('promise-returning stages are awaited in turn, in the documented order', async () => {
  for (let seed = 1; seed <= 60; seed++) {
    const random = mulberry32(seed);
    const stages = randomStages(random, 2 + Math.floor(random() * 6), (r) => r() < 0.5);
    const pipeline = new Pipeline();
    const { joins, log } = joinRandomly(random, pipeline, stages, false);
    const target = { ran: [] };
    const ran = pipeline.run(target);
    const waits = stages.some((stage) => stage.delayed);
    assert.equal(ran !== undefined, waits, `seed ${seed}: run() answers a promise when a stage waits`);
    await ran;
    assert.deepEqual(target.ran, expectedOrder(joins, false), `seed ${seed}, joins ${log.join(', ')}`);
  }
});

test('a throwing stage stops the run and its exception reaches the caller', async () => {
  const ran = [];
  const stage = (place, run) => ({ place, run });
  const boom = new Error('boom');
  const pipeline = new Pipeline();
  pipeline.use(stage('compression', () => ran.push('compression')));
  pipeline.use(stage('etag', () => ran.push('etag')));
  pipeline.use(
    stage('cache', () => {
      throw boom;
    }),
  );
  assert.throws(() => pipeline.run({}), boom);
  assert.deepEqual(ran, ['etag'], 'the stages after the throwing one did not run');

  const rejecting = new Pipeline();
  ran.length = 0;
  rejecting.use(stage('compression', () => ran.push('compression')));
  rejecting.use(stage('critical-css', () => Promise.reject(boom)));
  await assert.rejects(rejecting.run({}), boom);
  assert.deepEqual(ran, [], 'the stages after the rejecting one did not run');
});

test('a stage with an unknown place is refused with a coded RangeError', () => {
  const pipeline = new Pipeline();
  assert.throws(() => pipeline.use({ place: 'render', run() {} }), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
});

test('holdsLaterThan and hasMount answer on the stages that joined', () => {
  const mount = () => {};
  const pipeline = new Pipeline();
  pipeline.use({ place: 'etag', run() {} });
  assert.equal(pipeline.holdsLaterThan({ place: 'critical-css' }), true);
  assert.equal(pipeline.holdsLaterThan({ place: 'etag' }), false);
  assert.equal(pipeline.hasMount(mount), false);
  pipeline.use({ place: 'compression', run() {}, mount });
  assert.equal(pipeline.hasMount(mount), true);
});
