'use strict';
// One meaning per option (issue 54): the byte and entry budgets of a cache over
// sharedMemoryStore are the segment's, given once; stats() reports the budget that applies; a
// `store` that is no store is a TypeError naming the stores there are; and every field stats()
// returns, with every store, is documented in docs/cache.md and lib/cache/index.d.ts.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const Redis = require('ioredis');
const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
const { RedisStore } = require('../../../lib/cache/redis-store');
const { segmentDir, leftovers } = require('../helpers/shm-segments');

const PREFIX = `options-${process.pid}`;
const dir = segmentDir(PREFIX);
test.after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(leftovers(PREFIX), []);
});
const ROOT = path.join(__dirname, '..', '..', '..');

test("the budget is the segment's: given to responseCache as well it is a TypeError saying where", () => {
  for (const name of ['maxBytes', 'maxEntries']) {
    const store = sharedMemoryStore({ name: `${PREFIX}-a`, dir, maxBytes: 1 << 20 });
    assert.throws(() => responseCache({ [name]: 1 << 20, store }), {
      name: 'TypeError',
      message: new RegExp(`options\\.${name}: .*give ${name} to sharedMemoryStore\\(\\{ ${name} \\}\\) only`),
    });
  }
  // a plain cache and one over Redis keep their own budget (each process's memory)
  assert.equal(responseCache({ maxBytes: 1 << 20 }).stats().maxBytes, 1 << 20);
});

test("stats() reports the segment's budget, not the cache's default", () => {
  const store = sharedMemoryStore({ name: `${PREFIX}-b`, dir, maxBytes: 3 << 20, maxEntries: 500 });
  const stats = responseCache({ store }).stats();
  assert.equal(stats.maxBytes, 3 << 20);
  assert.equal(stats.maxEntries, 500);
  assert.equal(store.stats().maxBytes, 3 << 20);
});

test("a store that is no store (store: 'shared') is a TypeError naming the stores", () => {
  for (const value of ['shared', 'memory', 42, true]) {
    assert.throws(
      () => responseCache({ store: value }),
      (err) => {
        assert.ok(err instanceof TypeError);
        assert.match(err.message, /^options\.store must be sharedMemoryStore\(\{ name \}\)/);
        assert.match(err.message, /Redis or Valkey client \(ioredis, iovalkey or node-redis/);
        assert.match(err.message, /nothing \(this process's own memory store\)/);
        assert.match(err.message, new RegExp(`received .*${String(value)}`));
        return true;
      },
    );
  }
  assert.throws(() => responseCache({ store: {} }), /options\.store must be sharedMemoryStore\(\{ name \}\)/);
});

test('every stats() field of every store is documented in docs/cache.md and index.d.ts', () => {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'cache.md'), 'utf8');
  const stats = docs.slice(docs.indexOf('## Stats'), docs.indexOf('\n## ', docs.indexOf('## Stats') + 1));
  const types = fs.readFileSync(path.join(ROOT, 'lib', 'cache', 'index.d.ts'), 'utf8');
  const statsType = types.slice(types.indexOf('export interface ResponseCacheStats'));
  const interfaceBody = statsType.slice(0, statsType.indexOf('\n}'));
  const shared = sharedMemoryStore({ name: `${PREFIX}-c`, dir, maxBytes: 1 << 20 });
  const client = new Redis({ lazyConnect: true, enableOfflineQueue: false });
  const redis = new RedisStore(client, {}); // never started: its counters only
  client.disconnect();
  const fields = new Set([
    ...Object.keys(responseCache().stats()),
    ...Object.keys(responseCache({ store: shared }).stats()),
    ...Object.keys(redis.counters),
  ]);
  const undocumented = [...fields].filter(
    (field) => !stats.includes(`\`${field}\``) || !new RegExp(`\\n  ${field}\\??: `).test(interfaceBody),
  );
  assert.deepEqual(undocumented, []);
  for (const field of Object.keys(shared.stats())) assert.ok(stats.includes(`\`${field}\``), field);
});
