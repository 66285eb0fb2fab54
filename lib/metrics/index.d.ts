// require('ssr-native/metrics'): Prometheus metrics for ssr-native's caches and pools, on the
// app's own prom-client (an optional peer dependency).

/** The parts of prom-client used here (pass `require('prom-client')`). */
export interface PromClient {
  Gauge: new (config: any) => any;
  Counter: new (config: any) => any;
  Histogram: new (config: any) => any;
  register: PromRegistry;
}

export interface PromRegistry {
  registerMetric(metric: any): void;
  removeSingleMetric(name: string): void;
}

export interface RegisterMetricsOptions {
  /** Where the metrics go. Default: client.register (prom-client's default registry). */
  registry?: PromRegistry;
  /** Prepended to every metric name. Default 'ssr_native_'. */
  prefix?: string;
}

export interface RegisteredMetrics {
  /** The prom-client metrics made so far (more join when a new kind of source appears). */
  readonly metrics: any[];
  /** Removes them from the registry. */
  unregister(): void;
}

/**
 * Registers gauges, counters and histograms whose collect() reads every live FileCache, the
 * content-type caches and the argon2 pool at scrape time (nothing per request).
 */
export declare function registerMetrics(client: PromClient, options?: RegisterMetricsOptions): RegisteredMetrics;
