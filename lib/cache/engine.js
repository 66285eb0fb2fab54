'use strict';
// The response-cache engine, shared by the node:http/Express middleware and the Koa one: what a
// request may get from the cache (begin), whether what the origin answered may be stored (admit)
// and storing it (store), request coalescing (nginx proxy_cache_lock), hit-for-pass (Varnish),
// background refresh of stale entries (RFC 5861 stale-while-revalidate), stale-if-error, purges
// and counters. Adapters only move bytes between their framework and these calls.
const crypto = require('crypto');
const { addSource } = require('../stat-sources');
const rules = require('./rules');
const { keyBuilder, variantKey, targetOf } = require('./key');
const { MemoryStore, NO_NAMES } = require('./memory-store');
const { refreshThroughServer, REFRESH_HEADER } = require('./refresh');
const { RedisStore } = require('./redis-store');
const { etag: entityTag } = require('../etag');
const { invalidType, outOfRange } = require('../validate');

const DEFAULTS = {
  maxBytes: 64 * 1024 * 1024,
  maxEntries: 10000,
  maxEntrySize: 1024 * 1024,
  lockTimeout: 5000, // nginx proxy_cache_lock_timeout
  hitForPass: 120, // seconds; Varnish's default for an uncacheable object
  defaultTtl: 0,
  refreshTimeout: 30000,
  maxRefreshes: 16,
};

// Headers never stored: hop-by-hop ones (RFC 9110 7.6.1), the length (set from the stored body)
// and Age (computed on every hit).
const UNSTORED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'age',
]);

// RFC 9110 15.4.5: the stored headers a 304 carries
const NOT_MODIFIED_HEADERS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary', 'last-modified'];

const PASS_METHOD = { action: 'pass', reason: 'method' };
const PASS_COOKIE = { action: 'pass', reason: 'cookie' };
const PASS_BYPASS = { action: 'pass', reason: 'bypass' };
const PASS_HIT_FOR_PASS = { action: 'pass', reason: 'hit-for-pass' };

function numberOption(options, name, min = 0) {
  const value = options[name];
  if (value === undefined) return DEFAULTS[name];
  if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
  if (value < min) throw outOfRange(`options.${name}`, `>= ${min}`, value);
  return value;
}

function functionOption(options, name) {
  const value = options[name];
  if (value !== undefined && typeof value !== 'function') throw invalidType(`options.${name}`, 'a function', value);
  return value;
}

class CacheEngine {
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    this.maxBytes = numberOption(options, 'maxBytes');
    this.maxEntries = numberOption(options, 'maxEntries', 1);
    this.maxEntrySize = Math.min(numberOption(options, 'maxEntrySize'), this.maxBytes);
    this.lockTimeout = numberOption(options, 'lockTimeout');
    this.hitForPassMs = numberOption(options, 'hitForPass') * 1000;
    this.defaultTtl = numberOption(options, 'defaultTtl');
    this.refreshTimeout = numberOption(options, 'refreshTimeout', 1);
    this.maxRefreshes = numberOption(options, 'maxRefreshes');
    this.now = functionOption(options, 'now') || Date.now;
    this.bypass = functionOption(options, 'bypass');
    this.refresher = functionOption(options, 'refresh') || refreshThroughServer;
    const cookies = options.cookies === undefined ? false : options.cookies;
    if (typeof cookies !== 'boolean' && typeof cookies !== 'function')
      throw invalidType('options.cookies', 'a boolean or a function', cookies);
    this.cookies = cookies;
    const query = options.query === undefined ? 'keep' : options.query;
    if (query !== 'keep' && query !== 'sort' && query !== 'ignore')
      throw invalidType('options.query', "'keep', 'sort' or 'ignore'", query);
    const ignoreParams = options.ignoreParams === undefined ? [] : options.ignoreParams;
    if (!Array.isArray(ignoreParams)) throw invalidType('options.ignoreParams', 'an array of strings', ignoreParams);
    this.keys = keyBuilder({ query, ignoreParams, host: options.host !== false });
    this.statuses = options.statuses === undefined ? rules.DEFAULT_STATUSES : new Set(options.statuses);
    this.honorRequestNoCache = options.honorRequestNoCache === true;
    this.tagHeader = options.tagHeader === undefined ? 'cache-tag' : String(options.tagHeader).toLowerCase();
    this.addEtag = options.etag !== false;
    this.backgroundRefresh = options.staleWhileRevalidate !== false;
    this.token = crypto.randomBytes(18).toString('base64url'); // marks our own refresh requests
    this.memory = new MemoryStore({ maxBytes: this.maxBytes, maxEntries: this.maxEntries });
    this.pending = new Map(); // coalescing key -> { since, waiters: Set<function> }
    this.hitForPass = new Map(); // primary -> until (ms); insertion order = age, capped like entries
    this.refreshing = new Set(); // keys with a background refresh in flight
    // the shared layer (Redis/Valkey), behind this process's memory
    this.shared = undefined;
    if (options.store !== undefined) {
      const storeOptions = options.storeOptions === undefined ? {} : options.storeOptions;
      this.shared = new RedisStore(options.store, storeOptions);
      this.shared.start((message) => this.purgeLocally(message.op, message.arg));
    }
    this.counters = {
      hits: 0,
      misses: 0,
      staleServed: 0,
      staleIfError: 0,
      notModified: 0,
      passes: 0,
      hitForPassServed: 0,
      coalesced: 0,
      coalesceTimeouts: 0,
      waitersGone: 0,
      renders: 0,
      stored: 0,
      uncacheable: 0,
      tooLarge: 0,
      refreshes: 0,
      refreshFailures: 0,
      purged: 0,
      invalidated: 0,
    };
    // ssr-native/metrics reads stats() at scrape time (held weakly: a dropped cache leaves).
    addSource('response_cache', options.name || 'response-cache', (engine) => engine.stats(), {
      owner: this,
      counters: RESPONSE_CACHE_COUNTERS,
    });
  }

  // ---- request side -------------------------------------------------------------------------

  /**
   * What a request gets: { action: 'pass' } (the origin answers, nothing stored), 'hit' (the
   * entry, fresh or stale-while-revalidate), 'fill' (the origin answers and its response may be
   * stored) or 'wait' (another request is filling this key: wait(), then begin() again).
   * `req`: { method, url (the original request target), headers, socket }.
   */
  begin(req) {
    const headers = req.headers;
    let forced = false;
    if (headers[REFRESH_HEADER] !== undefined) {
      forced = headers[REFRESH_HEADER] === this.token;
      delete headers[REFRESH_HEADER];
    }
    if (!rules.isCacheableMethod(req.method)) {
      this.counters.passes++;
      return PASS_METHOD;
    }
    if (headers.cookie !== undefined && !(this.cookies === true || (this.cookies !== false && this.cookies(req)))) {
      this.counters.passes++;
      return PASS_COOKIE;
    }
    if (this.bypass !== undefined && this.bypass(req)) {
      this.counters.passes++;
      return PASS_BYPASS;
    }
    const primary = this.keys.primary(req.url, headers.host);
    const authorized = headers.authorization !== undefined;
    const now = this.now();
    if (!forced) {
      const until = this.hitForPass.get(primary);
      if (until !== undefined) {
        if (until > now) {
          this.counters.hitForPassServed++;
          this.counters.passes++;
          return PASS_HIT_FOR_PASS;
        }
        this.hitForPass.delete(primary);
      }
    }
    const names = this.memory.varyOf(primary);
    const key = names === undefined ? primary : variantKey(primary, names, headers);
    // RFC 9111 3.5: a request with credentials is answered by the origin (its response may be
    // stored if it says so); a refresh, or a client no-cache the options honour, renders anew.
    if (forced || authorized || (this.honorRequestNoCache && rules.requestAsksRevalidation(headers))) {
      const d = this.fill(primary, key, undefined, false, authorized, headers);
      d.fill.forced = true;
      return d;
    }
    const entry = this.memory.get(key);
    let stale;
    if (entry !== undefined) {
      if (now < entry.freshUntil) {
        this.counters.hits++;
        return { action: 'hit', entry, stale: false };
      }
      if (now < entry.swrUntil) {
        this.counters.staleServed++;
        if (this.backgroundRefresh) this.refreshInBackground(req, key);
        return { action: 'hit', entry, stale: true };
      }
      if (now < entry.sieUntil) stale = entry;
      else if (now >= entry.expiresAt) this.memory.delete(key);
    }
    const lock = this.pending.get(key);
    if (lock !== undefined && now - lock.since < this.lockTimeout) {
      this.counters.coalesced++;
      return { action: 'wait', key };
    }
    this.counters.misses++;
    return this.fill(primary, key, stale, true, false, headers);
  }

  fill(primary, key, stale, leader, authorized, requestHeaders) {
    if (leader) {
      const previous = this.pending.get(key);
      // a lock older than lockTimeout is taken over; its waiters moved on already
      this.pending.set(key, { since: this.now(), waiters: previous === undefined ? new Set() : previous.waiters });
    }
    this.counters.renders++;
    return {
      action: 'fill',
      fill: {
        primary,
        key,
        target: targetOf(primary),
        stale,
        leader,
        authorized,
        requestHeaders,
        forced: false,
        sharedLock: undefined,
        done: false,
      },
    };
  }

  /**
   * Waits for the request filling `key`: wake() is called when it is done (stored or not), or
   * after lockTimeout. Returns cancel(), for a client that leaves meanwhile.
   */
  wait(key, wake) {
    const lock = this.pending.get(key);
    let timer;
    const waiter = (timedOut) => {
      clearTimeout(timer);
      if (lock !== undefined) lock.waiters.delete(waiter);
      if (timedOut === true) this.counters.coalesceTimeouts++;
      wake(timedOut === true);
    };
    if (lock === undefined) {
      queueMicrotask(() => waiter(false));
      return () => {};
    }
    lock.waiters.add(waiter);
    const left = Math.max(0, this.lockTimeout - (this.now() - lock.since));
    timer = setTimeout(waiter, left, true);
    if (typeof timer.unref === 'function') timer.unref();
    return () => {
      clearTimeout(timer);
      if (lock.waiters.delete(waiter)) this.counters.waitersGone++;
    };
  }

  /** A request that timed out waiting renders itself (it may still store what it gets). */
  fillWithoutLock(req) {
    const primary = this.keys.primary(req.url, req.headers.host);
    const names = this.memory.varyOf(primary);
    const key = names === undefined ? primary : variantKey(primary, names, req.headers);
    this.counters.misses++;
    return this.fill(primary, key, undefined, false, req.headers.authorization !== undefined, req.headers).fill;
  }

  /** Whether a fill should first ask the shared layer (a fresh miss of this process). */
  asksShared(fill) {
    return this.shared !== undefined && fill.leader && !fill.forced && !fill.authorized;
  }

  /**
   * The shared layer's entry for a fill (then stored in memory and the fill released), or
   * undefined: render, holding the fleet-wide lock when it could be taken. Never rejects.
   */
  async sharedFill(fill) {
    const shared = this.shared;
    let key = fill.key;
    let got = await shared.get(key, fill.primary);
    if (got !== undefined && got.varyNames !== undefined) {
      key = variantKey(fill.primary, got.varyNames, fill.requestHeaders);
      got = await shared.get(key, undefined);
    }
    if (got !== undefined && got.entry !== undefined) return this.adopt(fill, got.entry);
    if (!shared.available()) return undefined;
    if (await shared.lock(key, this.lockTimeout)) {
      fill.sharedLock = key;
      // Another process may have stored the page and let go of its lease between our look and
      // our lock (a render is short, a busy event loop slow): look once more before rendering.
      const again = await shared.get(key, undefined);
      if (again !== undefined && again.entry !== undefined) return this.adopt(fill, again.entry);
      return undefined;
    }
    if (!shared.available()) {
      fill.sharedLock = key;
      return undefined;
    }
    // another process renders this page: wait for its entry, up to the lease
    shared.counters.sharedLockWaits++;
    const deadline = Date.now() + this.lockTimeout;
    while (Date.now() < deadline && shared.available()) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const again = await shared.get(key, undefined);
      if (again !== undefined && again.entry !== undefined) return this.adopt(fill, again.entry);
    }
    return undefined;
  }

  adopt(fill, entry) {
    if (this.now() >= entry.freshUntil) return undefined; // stale in the shared layer: render
    entry.size = Math.max(entry.size || 0, entry.body.length);
    this.memory.set(entry);
    this.counters.hits++;
    this.counters.misses--; // it was counted a miss of this process, and is a hit of the fleet
    this.counters.renders--;
    this.release(fill);
    return entry;
  }

  release(fill) {
    if (fill.done) return;
    fill.done = true;
    if (fill.sharedLock !== undefined) this.shared.unlock(fill.sharedLock);
    if (!fill.leader) return;
    const lock = this.pending.get(fill.key);
    if (lock === undefined) return;
    this.pending.delete(fill.key);
    for (const waiter of [...lock.waiters]) waiter(false);
  }

  // ---- response side ------------------------------------------------------------------------

  /**
   * Whether the origin's response (status, header map) may be stored for this fill: the storage
   * policy, or undefined (then the fill is released, and the key passes for a while if the
   * response says it never will be storable).
   */
  admit(fill, status, headers) {
    const cc = rules.parseCacheControl(headers['cache-control']);
    const why = rules.whyNotStorable(status, headers, cc, { statuses: this.statuses, authorized: fill.authorized });
    let lifetime;
    if (why === undefined) {
      lifetime = rules.freshnessLifetime(headers, cc);
      if (lifetime === undefined) lifetime = this.defaultTtl;
    }
    if (why !== undefined || lifetime <= 0) {
      this.uncacheable(fill, why === undefined ? 'no-lifetime' : why, status);
      return undefined;
    }
    const windows = rules.staleWindows(cc);
    return { status, lifetime, windows, varyNames: rules.varyNames(headers), age: rules.initialAge(headers) };
  }

  uncacheable(fill, reason, status) {
    this.counters.uncacheable++;
    // Hit-for-pass: remembered so the next requests for this URL go straight to the origin,
    // concurrently, instead of queueing behind one another. Not for a failing origin (5xx) or an
    // authorized request's answer (other users may get a shareable one), which say nothing
    // lasting about the URL.
    if (!rules.isServerError(status) && !fill.authorized && this.hitForPassMs > 0) {
      this.hitForPass.delete(fill.primary);
      this.hitForPass.set(fill.primary, this.now() + this.hitForPassMs);
      if (this.hitForPass.size > this.maxEntries) this.hitForPass.delete(this.hitForPass.keys().next().value);
    }
    this.release(fill);
    return reason;
  }

  /** A body grown past maxEntrySize: passed on, not stored, and the URL passes for a while. */
  tooLarge(fill) {
    this.counters.tooLarge++;
    this.uncacheable(fill, 'too-large', 200);
  }

  /** The fill ended without a whole response (client gone before the end, handler failed). */
  abandon(fill) {
    this.release(fill);
  }

  /** Stores the response: `headers` the origin's header map, `body` a Buffer it may keep. */
  store(fill, policy, headers, body, tagHeaderValue) {
    const now = this.now();
    const stored = {};
    for (const name of Object.keys(headers)) {
      if (UNSTORED.has(name) || name === this.tagHeader) continue;
      const value = headers[name];
      stored[name] = typeof value === 'number' ? String(value) : value;
    }
    let tag = rules.headerText(stored.etag);
    if (tag === undefined && this.addEtag) stored.etag = tag = entityTag(body);
    if (stored.date === undefined) stored.date = new Date(now).toUTCString();
    const tags = parseTags(tagHeaderValue);
    const key =
      policy.varyNames.length === 0 ? fill.primary : variantKey(fill.primary, policy.varyNames, fill.requestHeaders);
    let headerBytes = 0;
    for (const name in stored) headerBytes += name.length + String(stored[name]).length + 4;
    const storedAt = now - policy.age * 1000;
    const freshUntil = storedAt + policy.lifetime * 1000;
    const entry = {
      key,
      primary: fill.primary,
      target: fill.target,
      varyNames: policy.varyNames.length === 0 ? NO_NAMES : policy.varyNames, // one array for all
      status: policy.status,
      headers: stored,
      body,
      length: String(body.length),
      etag: tag,
      lastModified: rules.headerText(stored['last-modified']),
      tags,
      storedAt,
      freshUntil,
      swrUntil: freshUntil + policy.windows.whileRevalidate * 1000,
      sieUntil: freshUntil + policy.windows.ifError * 1000,
      expiresAt: freshUntil + Math.max(policy.windows.whileRevalidate, policy.windows.ifError) * 1000,
      size: body.length + 2 * key.length + headerBytes + 256,
    };
    let ok = false;
    if (entry.size <= this.maxBytes) {
      ok = this.memory.set(entry);
      if (ok) this.counters.stored++;
    }
    if (this.shared !== undefined) this.shared.put(entry, entry.expiresAt - now);
    this.hitForPass.delete(fill.primary);
    this.release(fill);
    return ok ? entry : undefined;
  }

  /** The Age a hit is sent with (RFC 9111 4.2.3), in seconds. */
  ageOf(entry) {
    return String(Math.max(0, Math.floor((this.now() - entry.storedAt) / 1000)));
  }

  /** RFC 9110 15.4.5: what a 304 from the cache carries. */
  notModifiedHeaders(entry) {
    const headers = { age: this.ageOf(entry) };
    for (const name of NOT_MODIFIED_HEADERS) {
      if (entry.headers[name] !== undefined) headers[name] = entry.headers[name];
    }
    return headers;
  }

  isNotModified(requestHeaders, entry) {
    if (requestHeaders['if-none-match'] === undefined && requestHeaders['if-modified-since'] === undefined)
      return false;
    if (entry.status < 200 || entry.status > 299 || entry.etag === undefined) return false;
    const yes = rules.isNotModified(requestHeaders, entry.etag, entry.lastModified);
    if (yes) this.counters.notModified++;
    return yes;
  }

  /** A stale-if-error copy standing in for a failed render. */
  servedStaleIfError() {
    this.counters.staleIfError++;
    this.counters.staleServed++;
  }

  refreshInBackground(req, key) {
    if (this.refreshing.has(key) || this.refreshing.size >= this.maxRefreshes || this.pending.has(key)) return;
    this.refreshing.add(key);
    this.counters.refreshes++;
    let settled = false;
    const done = (ok) => {
      if (settled) return;
      settled = true;
      this.refreshing.delete(key);
      if (!ok) this.counters.refreshFailures++;
    };
    try {
      this.refresher(req, { token: this.token, header: REFRESH_HEADER, timeout: this.refreshTimeout }, done);
    } catch {
      done(false);
    }
  }

  /** RFC 9111 4.4: a successful unsafe request invalidates its target. */
  invalidate(req, status) {
    if (!rules.invalidatesTarget(req.method, status)) return;
    const n = this.memory.purgeTarget(targetOf(this.keys.primary(req.url, req.headers.host)));
    this.counters.invalidated += n;
  }

  // ---- invalidation and counters ------------------------------------------------------------

  /** Purges this process's memory: op 'url' | 'prefix' | 'tag' | 'clear'. */
  purgeLocally(op, arg) {
    let n = 0;
    if (op === 'url') n = this.memory.purgeTarget(arg);
    else if (op === 'prefix') n = this.memory.purgePrefix(arg);
    else if (op === 'tag') n = this.memory.purgeTag(arg);
    else if (op === 'clear') {
      n = this.memory.clear();
      this.hitForPass.clear();
    }
    this.counters.purged += n;
    return n;
  }

  // Each purge returns the number of entries this process dropped; with a shared store, a
  // Promise of it, settled once the shared entries are deleted and every process is told.
  purgeEverywhere(op, arg) {
    const n = this.purgeLocally(op, arg);
    if (this.shared === undefined) return n;
    return this.shared.purge({ op, arg }).then(
      () => n,
      () => n,
    );
  }

  purge(url) {
    return this.purgeEverywhere('url', targetOf(this.keys.primary(String(url), '')));
  }

  purgePrefix(prefix) {
    return this.purgeEverywhere('prefix', String(prefix));
  }

  purgeTag(tag) {
    return this.purgeEverywhere('tag', String(tag).trim());
  }

  clear() {
    return this.purgeEverywhere('clear', '');
  }

  close() {
    if (this.shared !== undefined) this.shared.close();
  }

  stats() {
    return {
      ...this.counters,
      entries: this.memory.entries.size,
      bytes: this.memory.bytes,
      maxBytes: this.maxBytes,
      maxEntries: this.maxEntries,
      evictions: this.memory.evictions,
      pending: this.pending.size,
      hitForPassKeys: this.hitForPass.size,
      refreshing: this.refreshing.size,
      ...(this.shared === undefined ? {} : this.shared.counters),
    };
  }
}

// Cache-Tag: a comma- (or space-) separated list, as CDNs read it; bounded in count and length.
function parseTags(value) {
  const text = rules.headerText(value);
  if (text === undefined) return NO_NAMES;
  const tags = new Set();
  for (const item of text.split(/[,\s]+/)) {
    if (item && item.length <= 256) tags.add(item);
    if (tags.size >= 64) break;
  }
  return tags.size === 0 ? NO_NAMES : [...tags];
}

// The stats() fields that only grow (exported as <field>_total); the rest are gauges.
const RESPONSE_CACHE_COUNTERS = [
  'staleServed',
  'staleIfError',
  'notModified',
  'passes',
  'hitForPassServed',
  'coalesced',
  'coalesceTimeouts',
  'waitersGone',
  'renders',
  'stored',
  'uncacheable',
  'tooLarge',
  'refreshes',
  'refreshFailures',
  'purged',
  'invalidated',
  'sharedHits',
  'sharedMisses',
  'sharedWrites',
  'sharedErrors',
  'sharedTimeouts',
  'sharedLockWaits',
  'purgeMessages',
  'resubscriptions',
];

module.exports = { CacheEngine, DEFAULTS };
