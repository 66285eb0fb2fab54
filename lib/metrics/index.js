'use strict';
// require('ssr-native/metrics'): Prometheus metrics for ssr-native's caches and pools, on the
// app's own prom-client (never bundled: a second copy would have its own default registry).
//
//   const client = require('prom-client');
//   require('ssr-native/metrics').registerMetrics(client);
//   app.get('/metrics', async (req, res) => res.type(client.register.contentType).send(await client.register.metrics()));
//
// Every metric reads the live sources' stats() in its collect() callback, at scrape time: no
// work per request. Sources (sources.js) are every FileCache, the content-type caches, the
// argon2 pool, and whatever registers later (its metrics are made when it registers).
const { ownOptions } = require('../options');
const { invalidType, invalidValue } = require('../validate');
const sources = require('../stat-sources');

// One reading of every source per scrape: registry.metrics() calls each metric's collect() in
// one synchronous run, so a snapshot taken by the first is kept until the next microtask.
let snapshot = null;
function readSources(kind) {
  if (snapshot === null) {
    snapshot = sources.readSources();
    queueMicrotask(() => (snapshot = null));
  }
  return kind === undefined ? snapshot : snapshot.filter((s) => s.kind === kind);
}

const HELP = {
  file_cache_bytes: 'Bytes of file bodies held by the FileCache',
  file_cache_max_bytes: 'The FileCache memory budget (maxBytes)',
  file_cache_files: 'Files held by the FileCache',
  file_cache_hits_total: 'FileCache lookups answered from memory',
  file_cache_misses_total: 'FileCache loads that went to disk (missed memory)',
  file_cache_loads_total: 'Files read from disk into the FileCache',
  file_cache_evictions_total: 'FileCache entries dropped to stay within maxBytes (LRU)',
  file_cache_invalidations_total: 'FileCache entries dropped because the file changed',
  file_cache_watch_fallbacks_total: 'Directories inotify could not watch (limit reached): swept by stat instead',
  file_cache_watched_directories: 'Directories the FileCache watches with inotify',
  file_cache_inotify: '1 when the FileCache sees changes by inotify, 0 when by stat sweep only',
  content_type_cache_entries: 'Parsed headers held by the content-type cache',
  content_type_cache_capacity: 'Entries the content-type cache can hold',
  content_type_cache_hits_total: 'content-type parse/format calls answered from the cache',
  content_type_cache_misses_total: 'content-type parse/format calls computed and cached',
  content_type_cache_bypasses_total: 'content-type calls that skipped the cache (not cacheable)',
  argon2_queued: 'argon2 hashes waiting for admission (this thread)',
  argon2_in_flight: 'argon2 hashes admitted and running (this thread)',
  argon2_hashes_total: 'argon2 hashes completed (this thread)',
  argon2_rejected_total: 'argon2 calls rejected with SemaphoreFullError (HTTP 429)',
  argon2_shared_permits: 'Permits of the machine-wide argon2 budget',
  argon2_shared_permits_held: 'Permits of the machine-wide argon2 budget held by all its processes',
  argon2_hash_duration_seconds: 'argon2 hash duration, from the native call to its result',
};

const PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function snake(field) {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function isHistogram(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.bounds) && Array.isArray(value.counts);
}

// What one field of a kind's stats() becomes: { suffix, type } or null (not exported).
function shapeOf(field, value, counters) {
  if (isHistogram(value)) return { suffix: snake(field), type: 'histogram' };
  if (typeof value === 'boolean') return { suffix: snake(field), type: 'gauge' };
  if (typeof value !== 'number') return null;
  return counters.has(field)
    ? { suffix: `${snake(field)}_total`, type: 'counter' }
    : { suffix: snake(field), type: 'gauge' };
}

/**
 * registerMetrics(client, { registry, prefix }) -> { metrics, unregister() }.
 * `client` is the app's require('prom-client') (15.x); `registry` defaults to client.register;
 * `prefix` to 'ssr_native_'.
 */
// every name registerMetrics(client, options) knows (lib/options.js refuses others)
const METRICS_OPTIONS = ['registry', 'prefix'];

function registerMetrics(client, options = {}) {
  if (
    !client ||
    typeof client.Gauge !== 'function' ||
    typeof client.Counter !== 'function' ||
    typeof client.Histogram !== 'function'
  ) {
    throw invalidType('client', "the prom-client module (require('prom-client'))", client);
  }
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  ownOptions(options, METRICS_OPTIONS, 'registerMetrics(client, options)');
  const registry = options.registry === undefined ? client.register : options.registry;
  if (!registry || typeof registry.registerMetric !== 'function')
    throw invalidType('options.registry', 'a prom-client Registry', registry);
  const prefix = options.prefix === undefined ? 'ssr_native_' : options.prefix;
  if (typeof prefix !== 'string' || (prefix !== '' && !PREFIX.test(prefix))) {
    throw invalidValue('options.prefix', 'a metric name prefix', prefix);
  }

  const made = new Map(); // "kind field" -> metric
  const metrics = [];

  // A histogram whose buckets are the source's own cumulative counts, read at scrape time.
  class SourceHistogram extends client.Histogram {
    constructor(config, kind, field) {
      super(config);
      this.kind = kind;
      this.field = field;
    }
    async getForPromString() {
      const values = [];
      for (const { name, stats } of readSources(this.kind)) {
        const h = stats[this.field];
        if (!isHistogram(h)) continue;
        let cumulative = 0;
        h.bounds.forEach((le, i) => {
          cumulative += h.counts[i];
          values.push({ labels: { le, name }, value: cumulative, metricName: `${this.name}_bucket` });
        });
        cumulative += h.counts[h.bounds.length] || 0;
        values.push({ labels: { le: '+Inf', name }, value: cumulative, metricName: `${this.name}_bucket` });
        values.push({ labels: { name }, value: h.sum, metricName: `${this.name}_sum` });
        values.push({ labels: { name }, value: h.count, metricName: `${this.name}_count` });
      }
      return { name: this.name, help: this.help, type: 'histogram', values, aggregator: this.aggregator };
    }
    async get() {
      return this.getForPromString();
    }
  }

  function make(kind, field, shape, sample) {
    const key = `${kind} ${field}`;
    if (made.has(key)) return;
    const base = `${kind}_${shape.suffix}`;
    const config = {
      name: `${prefix}${base}`,
      help: HELP[base] || `${field} of ${kind} (its stats())`,
      labelNames: shape.type === 'histogram' ? ['name', 'le'] : ['name'],
      registers: [registry],
    };
    let metric;
    if (shape.type === 'histogram') {
      metric = new SourceHistogram({ ...config, labelNames: ['name'], buckets: sample.bounds }, kind, field);
    } else {
      const Type = shape.type === 'counter' ? client.Counter : client.Gauge;
      metric = new Type({
        ...config,
        collect() {
          this.reset();
          for (const { name, stats } of readSources(kind)) {
            const value = stats[field];
            if (typeof value === 'boolean') this.set({ name }, value ? 1 : 0);
            else if (typeof value === 'number' && Number.isFinite(value)) {
              if (shape.type === 'counter') this.inc({ name }, Math.max(0, value));
              else this.set({ name }, value);
            }
          }
        },
      });
    }
    made.set(key, metric);
    metrics.push(metric);
  }

  // Creates the metrics of every kind and field the live sources have now.
  function discover() {
    for (const source of sources.readSources()) discoverIn(source);
  }

  function discoverIn({ kind, counters, stats }) {
    for (const field in stats) {
      if (made.has(`${kind} ${field}`)) continue;
      const value = stats[field];
      const shape = shapeOf(field, value, counters);
      if (shape) make(kind, field, shape, value);
    }
  }

  discover();
  // A source made later (a FileCache) gets its metrics when it is made; a field that appears
  // later in a known source (argon2's shared budget, once joined) at the next scrape.
  const stopListening = sources.onSource((entry) => {
    snapshot = null; // a scrape in this same synchronous run must see it
    const stats = entry.read();
    if (stats !== null) discoverIn({ kind: entry.kind, counters: entry.counters, stats });
  });
  const sourcesGauge = new client.Gauge({
    name: `${prefix}metrics_sources`,
    help: 'Live ssr-native sources of statistics, by kind',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      discover();
      this.reset();
      const counts = new Map();
      for (const { kind } of readSources()) counts.set(kind, (counts.get(kind) || 0) + 1);
      for (const [kind, n] of counts) this.set({ kind }, n);
    },
  });
  metrics.unshift(sourcesGauge);

  return {
    metrics,
    unregister() {
      stopListening();
      for (const metric of metrics) registry.removeSingleMetric(metric.name);
    },
  };
}

module.exports = { registerMetrics };
