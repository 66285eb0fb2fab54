'use strict';
// ssr-native/metrics against a real prom-client 15 registry and a real Express app serving files
// (serveStatic), parsing content-types and hashing with argon2 (some calls turned away with 429):
// the scraped text says exactly what each piece's stats() counted, with Prometheus names and
// types, a `name` label per cache (unique), the argon2 hash durations as a cumulative histogram;
// a closed or collected FileCache leaves the output, and a source added later with one
// addSource() line appears at the next scrape.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const client = require('prom-client');
const express = require('express');
const serveStatic = require('../../../lib/express/serve-static.js');
const { FileCache } = require('../../../lib/files/file-cache.js');
const contentType = require('../../../lib/content-type/index.js');
const argon2 = require('../../../lib/argon2/index.js');
const { registerMetrics } = require('../../../lib/metrics/index.js');
const { addSource } = require('../../../lib/stat-sources.js');
const { listen, request } = require('../helpers/http');

// "name{a="x",b="y"}" -> value, and name -> TYPE, from Prometheus text output.
function parse(text) {
  const values = new Map();
  const types = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      types.set(name, type);
    } else if (line && !line.startsWith('#')) {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
      assert.ok(m, `a sample line: ${line}`);
      const labels = m[2]
        ? Object.fromEntries([...m[2].slice(1, -1).matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]))
        : {};
      const key = `${m[1]}{${Object.keys(labels)
        .sort()
        .map((k) => `${k}=${labels[k]}`)
        .join(',')}}`;
      values.set(key, Number(m[3]));
    }
  }
  return { values, types };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-metrics-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
fs.writeFileSync(path.join(tmp, 'a.txt'), 'a'.repeat(1000));
fs.writeFileSync(path.join(tmp, 'b.css'), 'body{}');

test(
  "an Express app's /metrics says what serveStatic, content-type and argon2 counted",
  { timeout: 60000 },
  async () => {
    const registry = new client.Registry();
    const cache = new FileCache({ root: tmp, name: 'assets' });
    const app = express();
    app.use('/static', serveStatic(tmp, { cache }));
    app.post('/login', async (req, res, next) => {
      try {
        const parsed = contentType.parse(req.headers['content-type']);
        res.json({
          type: parsed.type,
          hash: await argon2.hash('pw', { memoryCost: 4096, timeCost: 2, parallelism: 1 }),
        });
      } catch (err) {
        next(err);
      }
    });
    app.use(argon2.expressErrorHandler());
    registerMetrics(client, { registry });
    app.get('/metrics', async (req, res) => res.type(registry.contentType).send(await registry.metrics()));
    // One hash at a time, none waiting: a burst gets 429s.
    argon2.configure({ maxConcurrency: 1, maxQueue: 0 });
    const server = await listen(app);
    try {
      const ctBefore = contentType.cacheStats();
      for (let i = 0; i < 3; i++) assert.equal((await request(`${server.url}/static/a.txt`)).status, 200);
      assert.equal((await request(`${server.url}/static/b.css`)).status, 200);
      assert.equal((await request(`${server.url}/static/missing.txt`)).status, 404);
      const burst = await Promise.all(
        Array.from({ length: 6 }, () =>
          request(`${server.url}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        ),
      );
      const ok = burst.filter((r) => r.status === 200).length;
      const busy = burst.filter((r) => r.status === 429).length;
      assert.equal(ok + busy, burst.length, burst.map((r) => r.status).join());
      assert.ok(ok >= 1 && busy >= 1, `some admitted, some turned away (${ok} ok, ${busy} 429)`);

      const scrape = await request(`${server.url}/metrics`);
      assert.equal(scrape.status, 200);
      assert.match(scrape.headers['content-type'], /^text\/plain; version=0\.0\.4/);
      const { values, types } = parse(scrape.body.toString());
      const v = (key) => {
        assert.ok(values.has(key), `${key} in the output`);
        return values.get(key);
      };
      const fc = cache.stats();
      // FileCache: known answers (three reads of a.txt: one load, two hits) and stats() itself.
      assert.equal(v('ssr_native_file_cache_loads_total{name=assets}'), 2);
      assert.equal(v('ssr_native_file_cache_files{name=assets}'), 2);
      assert.equal(v('ssr_native_file_cache_bytes{name=assets}'), 1006);
      assert.equal(v('ssr_native_file_cache_max_bytes{name=assets}'), cache.maxBytes);
      assert.equal(v('ssr_native_file_cache_hits_total{name=assets}'), fc.hits);
      assert.ok(fc.hits >= 2);
      assert.equal(v('ssr_native_file_cache_misses_total{name=assets}'), fc.misses);
      assert.equal(v('ssr_native_file_cache_evictions_total{name=assets}'), 0);
      assert.equal(v('ssr_native_file_cache_watch_fallbacks_total{name=assets}'), fc.watchFallbacks);
      assert.equal(v('ssr_native_file_cache_inotify{name=assets}'), fc.inotify ? 1 : 0);
      // content-type: what this test parsed, counted by the cache.
      const ct = contentType.cacheStats();
      assert.equal(v('ssr_native_content_type_cache_hits_total{name=content-type}'), ct.hits);
      assert.equal(v('ssr_native_content_type_cache_misses_total{name=content-type}'), ct.misses);
      assert.ok(ct.hits + ct.misses > ctBefore.hits + ctBefore.misses, 'the parses were counted');
      assert.equal(v('ssr_native_content_type_cache_capacity{name=content-type}'), ct.capacity);
      // argon2: admitted and rejected calls, and a cumulative histogram of the admitted ones.
      assert.equal(v('ssr_native_argon2_hashes_total{name=pool}'), ok);
      assert.equal(v('ssr_native_argon2_rejected_total{name=pool}'), busy);
      assert.equal(v('ssr_native_argon2_in_flight{name=pool}'), 0);
      assert.equal(v('ssr_native_argon2_queued{name=pool}'), 0);
      assert.equal(v('ssr_native_argon2_hash_duration_seconds_count{name=pool}'), ok);
      assert.equal(v('ssr_native_argon2_hash_duration_seconds_bucket{le=+Inf,name=pool}'), ok);
      assert.ok(v('ssr_native_argon2_hash_duration_seconds_sum{name=pool}') > 0);
      let previous = 0;
      for (const le of argon2.stats().hashSeconds.bounds) {
        const n = v(`ssr_native_argon2_hash_duration_seconds_bucket{le=${le},name=pool}`);
        assert.ok(n >= previous, `buckets are cumulative at le=${le}`);
        previous = n;
      }
      // Prometheus conventions: counters end in _total, units in the name.
      for (const [name, type] of types) {
        assert.ok(name.startsWith('ssr_native_'), name);
        if (type === 'counter') assert.match(name, /_total$/, name);
        else assert.doesNotMatch(name, /_total$/, name);
      }
      assert.equal(types.get('ssr_native_argon2_hash_duration_seconds'), 'histogram');
      assert.equal(types.get('ssr_native_file_cache_bytes'), 'gauge');
    } finally {
      argon2.configure({ maxConcurrency: 1, maxQueue: 8 });
      await server.close();
      cache.close();
    }
  },
);

test('cache names are unique labels; a closed cache leaves; a source added later joins', async () => {
  const registry = new client.Registry();
  const handle = registerMetrics(client, { registry, prefix: 'app_' });
  // Made after registerMetrics (as serveStatic mounts usually are): in the first scrape.
  const a = new FileCache({ name: 'dup' });
  const b = new FileCache({ name: 'dup' });
  assert.equal(a.name, 'dup');
  assert.equal(b.name, 'dup#2');
  let text = await registry.metrics();
  assert.match(text, /^app_file_cache_files\{name="dup"\} 0$/m);
  assert.match(text, /^app_file_cache_files\{name="dup#2"\} 0$/m);
  b.close();
  text = await registry.metrics();
  assert.doesNotMatch(text, /name="dup#2"/);
  // A new kind of cache joins with one line; its metrics are in the very next scrape.
  const source = addSource('response_cache', 'pages', () => ({ hits: 7, entries: 2, bytes: 300, enabled: true }));
  const { values, types } = parse(await registry.metrics());
  assert.equal(values.get('app_response_cache_hits_total{name=pages}'), 7);
  assert.equal(types.get('app_response_cache_hits_total'), 'counter');
  assert.equal(values.get('app_response_cache_entries{name=pages}'), 2);
  assert.equal(values.get('app_response_cache_bytes{name=pages}'), 300);
  assert.equal(values.get('app_response_cache_enabled{name=pages}'), 1);
  assert.equal(values.get('app_metrics_sources{kind=response_cache}'), 1);
  source.remove();
  assert.doesNotMatch(await registry.metrics(), /app_response_cache_hits_total\{/);
  handle.unregister();
  assert.equal(await registry.metrics(), '\n');
  a.close();
});

test('a FileCache dropped without close() is not kept alive by the metrics registry', () => {
  const code = `
    const client = require('prom-client');
    const { FileCache } = require(${JSON.stringify(require.resolve('../../../lib/files/file-cache.js'))});
    const registry = new client.Registry();
    require(${JSON.stringify(require.resolve('../../../lib/metrics/index.js'))}).registerMetrics(client, { registry });
    let cache = new FileCache({ name: 'dropped' });
    const ref = new WeakRef(cache);
    cache = null;
    (async () => {
      for (let i = 0; i < 20 && ref.deref() !== undefined; i++) { await new Promise((r) => setImmediate(r)); global.gc(); }
      const text = await registry.metrics();
      console.log(JSON.stringify({ collected: ref.deref() === undefined, listed: text.includes('name="dropped"'), known: text.includes('ssr_native_file_cache_bytes') }));
    })();`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', code], {
    cwd: path.join(__dirname, '..', '..', '..'),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepStrictEqual(JSON.parse(r.stdout), { collected: true, listed: false, known: true });
});

test('registerMetrics checks its arguments', () => {
  assert.throws(() => registerMetrics({}), /client must be the prom-client module/);
  assert.throws(() => registerMetrics(client, { registry: {} }), /options.registry must be a prom-client Registry/);
  assert.throws(
    () => registerMetrics(client, { registry: new client.Registry(), prefix: 'bad-prefix' }),
    /options.prefix/,
  );
  assert.throws(() => new FileCache({ name: '' }), /options.name must be a non-empty string/);
});

test("a response cache's hits, renders and coalesced waits reach /metrics as counters", async () => {
  const { responseCache } = require('../../../lib/express/cache');
  const registry = new client.Registry();
  const handle = registerMetrics(client, { registry });
  const pages = responseCache({ name: 'pages' });
  const app = express();
  app.use(pages);
  app.get('/p', (req, res) => res.set('Cache-Control', 'public, max-age=60').send('page'));
  const server = await listen(app);
  try {
    const url = `${server.url}/p`;
    for (let i = 0; i < 3; i++) assert.equal((await request(url)).status, 200);
    const { values, types } = parse(await registry.metrics());
    const stats = pages.stats();
    assert.equal(stats.hits, 2);
    assert.equal(values.get('ssr_native_response_cache_hits_total{name=pages}'), stats.hits);
    assert.equal(values.get('ssr_native_response_cache_renders_total{name=pages}'), stats.renders);
    assert.equal(types.get('ssr_native_response_cache_renders_total'), 'counter');
    assert.equal(values.get('ssr_native_response_cache_entries{name=pages}'), 1);
    assert.equal(types.get('ssr_native_response_cache_entries'), 'gauge');
  } finally {
    await server.close();
    handle.unregister();
  }
});

test("the compression content cache's hits and compressions reach /metrics", async () => {
  const compression = require('../../../lib/express/compression');
  const { ContentCache } = require('../../../lib/compression/content-cache.js');
  const registry = new client.Registry();
  const handle = registerMetrics(client, { registry });
  const cache = new ContentCache({ name: 'pages-br' });
  const app = express();
  app.use(compression({ cache }));
  app.get('/p', (req, res) => res.type('html').send('<p>same page</p>'.repeat(500)));
  const server = await listen(app);
  try {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${server.url}/p`, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
      assert.equal(res.headers['content-encoding'], 'br');
    }
    const { values, types } = parse(await registry.metrics());
    const stats = cache.stats();
    assert.equal(stats.hits, 2);
    assert.equal(values.get('ssr_native_compression_cache_hits_total{name=pages-br}'), 2);
    assert.equal(values.get('ssr_native_compression_cache_compressions_total{name=pages-br}'), stats.compressions);
    assert.equal(types.get('ssr_native_compression_cache_compressions_total'), 'counter');
    assert.equal(values.get('ssr_native_compression_cache_entries{name=pages-br}'), 1);
  } finally {
    await server.close();
    handle.unregister();
  }
});
