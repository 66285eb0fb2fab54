'use strict';
// The Cache-Status response header (RFC 9211) the response cache adds when its `cacheStatus`
// option asks: how this cache handled the request, as one list member named `ssr-native`:
//   ssr-native; hit; ttl=42                   a stored entry, fresh (ttl: seconds of freshness left)
//   ssr-native; hit; ttl=-3                   stale-while-revalidate: stale, served, refreshed behind
//   ssr-native; fwd=miss                      rendered (and stored if the response allows)
//   ssr-native; fwd=stale                     rendered again: the entry was past its freshness
//   ssr-native; fwd=stale; fwd-status=500; ttl=-9   the render failed: its stale-if-error copy
//   ssr-native; fwd=request                   rendered: the request may not be answered from storage
//   ssr-native; fwd=method                    a method the cache never answers (POST...)
//   ssr-native; fwd=bypass; detail=cookie     passed by a rule (the rule's name in detail)
// It is a property of one response, never of a stored entry: the engine does not store it and
// each hit computes its own. `cacheStatus: { worker: true }` names the process in detail
// (`pid=`, and `worker=` with node:cluster / PM2's cluster mode), which is why it is opt-in:
// it tells any client how the fleet is laid out.
const cluster = require('cluster');
const { invalidType } = require('../validate');
const { ownOptions } = require('../options');

const NAME = 'ssr-native';
const HEADER = 'cache-status';

// begin()'s pass reasons that are a method rule; every other reason is a configured bypass
const FWD_OF_PASS = { method: 'method' };

function processDetail() {
  const worker = cluster.isWorker && cluster.worker ? ` worker=${cluster.worker.id}` : '';
  return `pid=${process.pid}${worker}`;
}

class CacheStatus {
  constructor(worker) {
    this.process = worker ? processDetail() : undefined;
  }

  // RFC 9211 2.8: detail is a token or a string; ours is a string when it holds the process
  detail(reason) {
    if (this.process === undefined) return reason === undefined ? '' : `; detail=${reason}`;
    return `; detail="${reason === undefined ? '' : `${reason} `}${this.process}"`;
  }

  /** A response from storage; `ttl` in seconds, negative when stale (RFC 9211 2.4). */
  hit(ttl) {
    return `${NAME}; hit; ttl=${ttl}${this.detail()}`;
  }

  /** A request begin() passed: `reason` one of its pass reasons. */
  pass(reason) {
    const fwd = FWD_OF_PASS[reason];
    return fwd === undefined ? `${NAME}; fwd=bypass${this.detail(reason)}` : `${NAME}; fwd=${fwd}${this.detail()}`;
  }

  /** A fill: `why` 'miss', 'stale' (an entry past freshness) or 'request' (storage not allowed). */
  forward(why) {
    return `${NAME}; fwd=${why}${this.detail()}`;
  }

  /** A stale-if-error copy standing in for a render answered with `status`. */
  staleIfError(status, ttl) {
    return `${NAME}; fwd=stale; fwd-status=${status}; ttl=${ttl}${this.detail()}`;
  }
}

/** The option read: undefined (off, the default), or the CacheStatus that writes the header. */
function cacheStatusOption(value) {
  if (value === undefined || value === false) return undefined;
  if (value === true) return new CacheStatus(false);
  if (value === null || typeof value !== 'object')
    throw invalidType('options.cacheStatus', 'a boolean or { worker: boolean }', value);
  ownOptions(value, ['worker'], 'responseCache(options.cacheStatus)');
  if (value.worker !== undefined && typeof value.worker !== 'boolean')
    throw invalidType('options.cacheStatus.worker', 'a boolean', value.worker);
  return new CacheStatus(value.worker === true);
}

module.exports = { cacheStatusOption, CACHE_STATUS_HEADER: HEADER };
