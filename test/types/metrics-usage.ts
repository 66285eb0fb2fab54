// Compiled (not run) by test/js/package/package.test.js: ssr-native/metrics' declarations with the real
// prom-client 15 module and registry, and the stats fields the metrics read.
import client = require('prom-client');
import metrics = require('ssr-native/metrics');
import argon2 = require('ssr-native/argon2');
import { FileCache } from 'ssr-native/serve-static';

const registered = metrics.registerMetrics(client);
const own = metrics.registerMetrics(client, { registry: new client.Registry(), prefix: 'app_' });
registered.unregister();
const count: number = own.metrics.length;
const cache = new FileCache({ name: 'assets', maxBytes: 1 << 20 });
const label: string = cache.name;
const loads: number = cache.stats().loads + cache.stats().watchFallbacks;
const seconds = argon2.stats().hashSeconds;
const buckets: number = seconds.bounds.length + seconds.counts.length + seconds.sum + seconds.count;
// @ts-expect-error the prefix is a string
metrics.registerMetrics(client, { prefix: 1 });
(void count, label, loads, buckets);
