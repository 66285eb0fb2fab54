'use strict';
// The response-cache engine, shared by the node:http/Express middleware and the Koa one: what a
// request may get from the cache (begin), whether what the origin answered may be stored (admit)
// and storing it (store), request coalescing (nginx proxy_cache_lock), hit-for-pass (Varnish),
// background refresh of stale entries (RFC 5861 stale-while-revalidate), stale-if-error, purges
// and counters. Adapters only move bytes between their framework and these calls.
const crypto = require('crypto');
const { addSource } = require('../stat-sources');
const rules = require('../http/cache-rules');
const { isNotModified } = require('../http/conditional');
const shareable = require('../http/shareable');
const { HOP_BY_HOP } = require('../http/hop-by-hop');
const { isAuthority } = require('../http/authority');
const { keyBuilder, variantKey, targetOf, hostOf } = require('./key');
const { MemoryStore, NO_NAMES } = require('./memory-store');
const { refreshThroughServer, REFRESH_HEADER } = require('./refresh');
const { RedisStore } = require('./redis-store');
const { CACHE_LAYERS } = require('./shared-memory-store');
const { storeChoiceError } = require('./store-choice');
const inputs = require('./request-inputs');
const { etag: entityTag } = require('../etag');
const { invalidType, invalidValue, outOfRange, ownError } = require('../validate');
const { ownOptions } = require('../options');
const { cacheStatusOption, CACHE_STATUS_HEADER } = require('./cache-status');
const { BoundedLru } = require('../bounded/lru');

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
// every name responseCache(options) knows (lib/options.js refuses others)
const RESPONSE_CACHE_OPTIONS = [
  ...Object.keys(DEFAULTS),
  ...['name', 'query', 'ignoreParams', 'host', 'allowedHosts', 'forwarded', 'key', 'keyHeaders', 'cookies'],
  ...['authorization', 'bypass', 'statuses', 'honorRequestNoCache', 'tagHeader', 'etag', 'staleWhileRevalidate'],
  ...['refresh', 'store', 'storeOptions', 'now', 'cacheStatus'],
];

// Headers never stored: hop-by-hop ones (RFC 9110 7.6.1), the length (set from the stored body)
// and Age (computed on every hit).
const UNSTORED = new Set([...HOP_BY_HOP, 'content-length', 'age']);

// RFC 9110 15.4.5: the stored headers a 304 carries
const NOT_MODIFIED_HEADERS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary', 'last-modified'];

const PASS_METHOD = { action: 'pass', reason: 'method' };
const PASS_COOKIE = { action: 'pass', reason: 'cookie' };
const PASS_BYPASS = { action: 'pass', reason: 'bypass' };
const PASS_HIT_FOR_PASS = { action: 'pass', reason: 'hit-for-pass' };
const PASS_REWRITE = { action: 'pass', reason: 'rewrite' };
const PASS_AUTHORIZATION = { action: 'pass', reason: 'authorization' };
const PASS_BODY = { action: 'pass', reason: 'body' }; // a GET/HEAD body: input the key cannot see
const PASS_BY_REASON = { method: PASS_METHOD, body: PASS_BODY, cookie: PASS_COOKIE, authorization: PASS_AUTHORIZATION };
const PASS_UNKEYED = { action: 'pass', reason: 'unkeyed' }; // forwarding headers not keyed, a Host not allowed, key() false
const PASS_BAD_AUTHORITY = { action: 'pass', reason: 'bad-authority' }; // a Host that is not host[:port]
const BAD_AUTHORITY = Symbol('bad authority');
const HOST_WARNING_EVERY_MS = 60_000; // a refused Host is warned about at most this often
const PASS_REFRESH = { action: 'pass', reason: 'refresh-mismatch' };
// A stale hit that found another process refreshing its key asks the segment again no sooner
// than this (real time): a refused refresh lock costs a mutex and a kill(pid, 0) check.
const REFRESH_ELSEWHERE_MS = 200;
// How long a refresh's lock outlives its answer while the page it rendered is not stored yet.
const REFRESH_STORE_GRACE_MS = 1000;

// The request headers a compression drop-in negotiates on (RFC 9842 for the dictionary ones).
const COMPRESSION_NEGOTIATES = new Set(['accept-encoding', 'available-dictionary', 'dictionary-id']);

function isEncoded(contentEncoding) {
  const text = rules.headerText(contentEncoding);
  return text !== undefined && text.trim() !== '' && text.trim().toLowerCase() !== 'identity';
}

// Why a response may not be stored that holds for every request to its variant: these start
// hit-for-pass. A status (206, 304, 412, a redirect) need not.
const VARIANT_WIDE = new Set([
  'no-store',
  'private',
  'no-cache',
  'set-cookie',
  'vary-star',
  'no-lifetime',
  'too-large',
]);

// A refresh whose socket could not be made to count as its trigger's: it builds no key.
const REFUSED_TICKET = Object.freeze({ key: undefined, remoteAddress: undefined });

// Adapters tell the engine whether their framework would honour a request's forwarding headers.
const NO_TRUST = () => false;

function numberOption(options, name, min = 0) {
  const value = options[name];
  if (value === undefined) return DEFAULTS[name];
  if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
  if (value < min) throw outOfRange(`options.${name}`, `>= ${min}`, value);
  return value;
}

function booleanOrFunctionOption(options, name) {
  const value = options[name] === undefined ? false : options[name];
  if (typeof value !== 'boolean' && typeof value !== 'function')
    throw invalidType(`options.${name}`, 'a boolean or a function', value);
  return value;
}

function functionOption(options, name) {
  const value = options[name];
  if (value !== undefined && typeof value !== 'function') throw invalidType(`options.${name}`, 'a function', value);
  return value;
}

class CacheEngine {
  /**
   * `adapter.trustsForwarding(view)`: whether the framework honours the forwarding headers of
   * this request (Express: `trust proxy` covers the peer; Koa: `app.proxy`).
   */
  constructor(options = {}, adapter = {}) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    ownOptions(options, RESPONSE_CACHE_OPTIONS, 'responseCache(options)');
    const store = options.store;
    if (store != null && typeof store !== 'object' && typeof store !== 'function') throw storeChoiceError(store);
    // a store with layers of its own (sharedMemoryStore) replaces this process's memory
    const layers = store == null ? undefined : store[CACHE_LAYERS];
    this.layers = layers;
    if (layers === undefined) {
      this.maxBytes = numberOption(options, 'maxBytes');
      this.maxEntries = numberOption(options, 'maxEntries', 1);
    } else {
      // one budget: the segment's, which holds the entries of every process
      for (const name of ['maxBytes', 'maxEntries'])
        if (options[name] !== undefined)
          throw ownError(
            TypeError,
            'OPTION_CONFLICT',
            `options.${name}: with store: sharedMemoryStore(...), the segment holds the entries and its size is the budget: give ${name} to sharedMemoryStore({ ${name} }) only`,
          );
      this.maxBytes = layers.memory.maxBytes;
      this.maxEntries = layers.memory.maxEntries;
    }
    this.maxEntrySize = Math.min(numberOption(options, 'maxEntrySize'), this.maxBytes);
    this.lockTimeout = numberOption(options, 'lockTimeout');
    this.hitForPassMs = numberOption(options, 'hitForPass') * 1000;
    this.defaultTtl = numberOption(options, 'defaultTtl');
    this.refreshTimeout = numberOption(options, 'refreshTimeout', 1);
    this.maxRefreshes = numberOption(options, 'maxRefreshes');
    this.now = functionOption(options, 'now') || Date.now;
    this.bypass = functionOption(options, 'bypass');
    this.refresher = functionOption(options, 'refresh') || refreshThroughServer;
    this.cookies = booleanOrFunctionOption(options, 'cookies');
    this.authorization = booleanOrFunctionOption(options, 'authorization');
    this.trustsForwarding = adapter.trustsForwarding || NO_TRUST;
    const forwarded = options.forwarded === undefined ? 'auto' : options.forwarded;
    if (forwarded !== 'auto' && forwarded !== 'key' && forwarded !== 'pass')
      throw invalidType('options.forwarded', "'auto', 'key' or 'pass'", forwarded);
    this.forwarded = forwarded;
    if (options.allowedHosts !== undefined && !Array.isArray(options.allowedHosts))
      throw invalidType('options.allowedHosts', 'an array of host names', options.allowedHosts);
    this.allowedHost =
      options.allowedHosts === undefined
        ? undefined
        : inputs.hostAllowList(options.allowedHosts, { anyPort: options.host !== false });
    this.lastAuthority = undefined; // the last Host value found well-formed
    this.hostAllowed = false; // allowedHosts matched a request once (said in the refusal's warning)
    this.hostWarnedAt = -Infinity; // Date.now() of the last refusal warning (one a minute at most)
    if (options.host === false && this.allowedHost === undefined)
      throw invalidValue(
        'options.allowedHosts',
        'the names of the one site with options.host: false (it shares one entry between every Host a request names)',
        options.allowedHosts,
      );
    this.keyHook = functionOption(options, 'key');
    const keyHeaders = options.keyHeaders === undefined ? [] : options.keyHeaders;
    if (!Array.isArray(keyHeaders)) throw invalidType('options.keyHeaders', 'an array of header names', keyHeaders);
    this.keyHeaders = keyHeaders.map((name) => String(name).toLowerCase());
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
    // RFC 9211's Cache-Status (./cache-status.js), or undefined when not asked
    this.cacheStatus = cacheStatusOption(options.cacheStatus);
    this.token = crypto.randomBytes(18).toString('base64url'); // marks our own refresh requests
    this.memory =
      layers === undefined ? new MemoryStore({ maxBytes: this.maxBytes, maxEntries: this.maxEntries }) : layers.memory;
    this.pending = new Map(); // coalescing key -> { since, waiters: Set<function> }
    // Both first in first out (looked up with peek), capped like entries:
    this.hitForPass = new BoundedLru({ maxEntries: this.maxEntries }); // variant key -> until (ms)
    this.hitForPassVary = new BoundedLru({ maxEntries: this.maxEntries }); // primary -> its Vary names
    this.refreshing = new Set(); // keys with a background refresh in flight
    this.tickets = new Map(); // refresh number -> { key, remoteAddress }: the refreshes sent
    this.ticketSeq = 0;
    // sharedMemoryStore: refreshes and hit-for-pass once per machine (shared-memory-work.js)
    this.work = layers === undefined ? undefined : layers.work;
    this.refreshElsewhere = new BoundedLru({ maxEntries: 1024 }); // key -> Date.now() to ask again
    // the shared layer (Redis/Valkey), behind this process's memory
    this.shared = undefined;
    if (layers !== undefined) this.shared = layers.shared;
    else if (options.store !== undefined) {
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
      unkeyedPasses: 0,
      badAuthority: 0,
      hostNotAllowed: 0,
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
    let ticket;
    if (headers[REFRESH_HEADER] !== undefined) {
      ticket = this.takeTicket(headers[REFRESH_HEADER], req.socket);
      delete headers[REFRESH_HEADER];
    }
    if (!rules.isCacheableMethod(req.method)) {
      this.counters.passes++;
      return PASS_METHOD;
    }
    if (inputs.hasAny(headers, inputs.REWRITE_HEADERS)) {
      this.counters.passes++;
      return PASS_REWRITE;
    }
    const notShared = shareable.whyRequestNotShareable(req, this);
    if (notShared !== undefined) {
      this.counters.passes++;
      return PASS_BY_REASON[notShared];
    }
    const authorized = headers.authorization !== undefined;
    if (this.bypass !== undefined && this.bypass(req)) {
      this.counters.passes++;
      return PASS_BYPASS;
    }
    const primary = this.primaryOf(req);
    if (primary === undefined || primary === BAD_AUTHORITY) {
      this.counters.passes++;
      this.counters.unkeyedPasses++;
      if (primary === undefined) return PASS_UNKEYED;
      this.counters.badAuthority++;
      return PASS_BAD_AUTHORITY;
    }
    let names = this.memory.varyOf(primary);
    if (names === undefined && this.hitForPassVary.size > 0) names = this.hitForPassVary.peek(primary);
    const key = names === undefined ? primary : variantKey(primary, names, headers);
    if (ticket !== undefined && ticket.key !== key) {
      // the refresh would not render the variant it was sent for (a key() input it lacks)
      this.counters.passes++;
      return PASS_REFRESH;
    }
    const forced = ticket !== undefined;
    // RFC 9111 3.5: a request with credentials (here only where the options let it in) is
    // answered by the origin, and its response stored if it says so; a refresh, or a client
    // no-cache the options honour, renders anew.
    if (forced || authorized || (this.honorRequestNoCache && rules.requestAsksRevalidation(headers))) {
      const d = this.fill(req, primary, key, undefined, false, authorized);
      d.fill.forced = true;
      return d;
    }
    const now = this.now();
    const entry = this.memory.get(key);
    let stale;
    if (entry !== undefined) {
      if (now < entry.freshUntil) {
        this.counters.hits++;
        if (this.layers !== undefined) this.servedFromSegment();
        return { action: 'hit', entry, stale: false };
      }
      if (now < entry.swrUntil) {
        this.counters.staleServed++;
        if (this.layers !== undefined) this.servedFromSegment();
        if (this.backgroundRefresh) this.refreshInBackground(req, key, entry);
        return { action: 'hit', entry, stale: true };
      }
      if (now < entry.sieUntil) stale = entry;
      else if (now >= entry.expiresAt) this.memory.delete(key);
    }
    // Hit-for-pass (Varnish): this variant's answers were found unstorable for everyone lately.
    // Checked after the lookup: a stored entry is always good to serve.
    const work = this.sharedWork();
    if (work !== undefined || this.hitForPass.size > 0) {
      const until =
        work === undefined
          ? this.hitForPass.peek(key)
          : work.passUntil(primary, key, (names) => variantKey(primary, names, headers));
      if (until !== undefined) {
        if (until > now) {
          this.counters.hitForPassServed++;
          this.counters.passes++;
          return PASS_HIT_FOR_PASS;
        }
        this.hitForPass.delete(key);
      }
    }
    const lock = this.pending.get(key);
    if (lock !== undefined && now - lock.since < this.lockTimeout) {
      this.counters.coalesced++;
      return { action: 'wait', key, primary };
    }
    this.counters.misses++;
    return this.fill(req, primary, key, stale, true, false);
  }

  /**
   * The primary key of a request (target, Host, and the forwarding headers where they are
   * keyed, and the key() hook's value), or undefined when it must pass: forwarding headers the
   * framework would not honour (option forwarded 'auto') or any (option 'pass'), a Host outside
   * allowedHosts, key() returning false; or BAD_AUTHORITY when a Host, :authority or forwarded
   * host is not an authority (lib/http/authority.js): such a value is never keyed nor matched.
   */
  primaryOf(req) {
    const headers = req.headers;
    const authority = headers[':authority'];
    const host = headers.host;
    // HTTP/2 names the site in :authority; a Host beside it is an authority too
    if (
      (authority !== undefined && !this.isAuthority(authority)) ||
      (host !== undefined && host !== authority && !this.isAuthority(host))
    )
      return BAD_AUTHORITY;
    let extra = '';
    if (inputs.hasAny(headers, inputs.FORWARDING_HEADERS)) {
      if (this.forwarded === 'pass' || (this.forwarded === 'auto' && !this.trustsForwarding(req))) return undefined;
      for (const forwarded of inputs.forwardedHosts(headers)) {
        if (!isAuthority(forwarded)) return BAD_AUTHORITY;
        if (this.allowedHost !== undefined && !this.allowedHost(forwarded)) return this.refusedHost(forwarded);
      }
      extra = inputs.forwardingPart(headers);
    }
    if (this.allowedHost !== undefined) {
      if (authority !== undefined && !this.allowedHost(authority)) return this.refusedHost(authority);
      if ((authority === undefined || host !== undefined) && !this.allowedHost(host)) return this.refusedHost(host);
      this.hostAllowed = true;
    }
    if (this.keyHook !== undefined) {
      const part = this.keyHook(req);
      if (part === false || part === null) return undefined;
      if (part !== undefined && part !== '') extra += `\n\u0001${String(part).replace(/[\n\0]/g, ' ')}`;
    }
    for (let i = 0; i < this.keyHeaders.length; i++) {
      const value = headers[this.keyHeaders[i]];
      if (value !== undefined) extra += `\n${this.keyHeaders[i]}=${Array.isArray(value) ? value.join(', ') : value}`;
    }
    const primary = this.keys.primary(req.url, hostOf(headers));
    return extra === '' ? primary : primary + extra;
  }

  /** isAuthority, remembering the last good value: a site's requests mostly name one Host. */
  isAuthority(value) {
    if (value === this.lastAuthority) return true;
    if (!isAuthority(value)) return false;
    this.lastAuthority = value;
    return true;
  }

  /**
   * A Host allowedHosts refused: counted, and named in a warning at most once a minute (real
   * time, not the `now` option's clock): a missing name or port, or someone probing.
   */
  refusedHost(host) {
    this.counters.hostNotAllowed++;
    const now = Date.now();
    if (now - this.hostWarnedAt >= HOST_WARNING_EVERY_MS) {
      this.hostWarnedAt = now;
      const what = this.hostAllowed
        ? 'that request passes the cache'
        : 'and has allowed none yet: every request passes the cache';
      process.emitWarning(
        `response cache: options.allowedHosts refused the Host ${JSON.stringify(String(host))} ${what} (${this.counters.hostNotAllowed} refused so far; is the site's name, and port, in allowedHosts? an entry without a port matches only a Host without one when host: false)`,
        { code: 'SSR_NATIVE_CACHE_HOST_NOT_ALLOWED' },
      );
    }
    return undefined;
  }

  fill(req, primary, key, stale, leader, authorized) {
    if (leader) {
      const previous = this.pending.get(key);
      // a lock older than lockTimeout is taken over; its waiters moved on already
      this.pending.set(key, { since: this.now(), waiters: previous === undefined ? new Set() : previous.waiters });
    }
    this.counters.renders++;
    const requestHeaders = req.headers;
    return {
      action: 'fill',
      fill: {
        primary,
        key,
        target: targetOf(primary),
        url: req.url,
        stale,
        leader,
        authorized,
        requestHeaders,
        // an answer to a range or a precondition of this one request says nothing of the others
        requestSpecific: inputs.hasAny(requestHeaders, inputs.REQUEST_SPECIFIC),
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

  /** A request that timed out waiting (`wait`: its begin()'s answer) renders itself; it may still store what it gets. */
  fillWithoutLock(req, wait) {
    this.counters.misses++;
    return this.fill(req, wait.primary, wait.key, undefined, false, req.headers.authorization !== undefined).fill;
  }

  /**
   * On a fill, before the app renders: the ignored parameters (query 'ignore': the whole query)
   * taken out of the URL the app sees, the Varnish way: the key does not hold them, so the page
   * stored for everyone must not be rendered from them. `req` is the node request: its url and
   * (Express, connect) originalUrl are stripped, the URL as received stays in
   * req.unstrippedUrl; Express 4's req.query, parsed before any middleware, is parsed again.
   * Returns whether anything was taken out.
   */
  stripIgnored(req) {
    if (!this.keys.strips) return false;
    const url = this.keys.strip(req.url);
    const original = typeof req.originalUrl === 'string' ? this.keys.strip(req.originalUrl) : undefined;
    if (url === req.url && original === req.originalUrl) return false;
    if (req.unstrippedUrl === undefined)
      req.unstrippedUrl = typeof req.originalUrl === 'string' ? req.originalUrl : req.url;
    req.url = url;
    if (original !== undefined) req.originalUrl = original;
    if (
      Object.prototype.hasOwnProperty.call(req, 'query') &&
      req.app !== undefined &&
      typeof req.app.get === 'function'
    ) {
      const parse = req.app.get('query parser fn');
      const q = url.indexOf('?');
      if (typeof parse === 'function') req.query = parse(q === -1 ? '' : url.slice(q + 1));
    }
    return true;
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
      // its holder gave up (died, or found the page not storable): one waiter renders next
      if (shared.retakesLocks === true && (await shared.lock(key, this.lockTimeout))) {
        fill.sharedLock = key;
        return undefined;
      }
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
    const { why, lifetime, cc } = shareable.responseShareability(status, headers, {
      authorized: fill.authorized,
      policy: this,
    });
    const varyNames = rules.varyNames(headers);
    if (why !== undefined) {
      this.uncacheable(fill, why, status, varyNames);
      return undefined;
    }
    const windows = rules.staleWindows(cc);
    return { status, lifetime, windows, varyNames, age: rules.initialAge(headers) };
  }

  /**
   * The decision again, on the head the response actually went out with (`sent`: { status,
   * headers }, see sent-head.js), once it has: a Set-Cookie, Cache-Control or Vary that
   * something added after admit() (an on-headers listener, Koa middleware after next(),
   * compression holding the head back) is seen before anything is stored. `stored` is the
   * header map admit() saw, as the cache will store it; it takes the Cache-Control, Expires and
   * Vary that were sent. Returns the policy to store with, or undefined (the fill is released).
   */
  confirm(fill, policy, stored, sent) {
    const final = sent.headers;
    if (sent.status !== policy.status) {
      this.uncacheable(fill, 'status', sent.status, policy.varyNames);
      return undefined;
    }
    // Compression mounted in front varies its encodings on what it negotiates (Accept-Encoding,
    // and with a dictionary Available-Dictionary and Dictionary-ID), before the route runs (Koa)
    // or after (Express); the identity body stored here does not depend on them (a hit goes
    // through that compression again). Kept in the key, a random Available-Dictionary per
    // request would force a render and an entry each. A body the route encoded itself keeps the
    // names it was stored with.
    const encoded = isEncoded(stored['content-encoding']);
    const own = (name) => !COMPRESSION_NEGOTIATES.has(name) || (encoded && policy.varyNames.includes(name));
    const varyNames = rules.varyNames(final).filter(own);
    for (const name of policy.varyNames) if (own(name) && !varyNames.includes(name)) varyNames.push(name);
    varyNames.sort();
    const decision = { ...final, vary: varyNames.join(', ') };
    const { why, lifetime, cc } = shareable.responseShareability(sent.status, decision, {
      authorized: fill.authorized,
      policy: this,
    });
    if (why !== undefined) {
      this.uncacheable(fill, why, sent.status, varyNames);
      return undefined;
    }
    for (const name of ['cache-control', 'expires']) {
      if (final[name] === undefined) delete stored[name];
      else stored[name] = final[name];
    }
    if (varyNames.length === 0) delete stored.vary;
    else if (varyNames.length !== policy.varyNames.length || varyNames.some((name, i) => name !== policy.varyNames[i]))
      stored.vary = varyNames.join(', ');
    return { status: sent.status, lifetime, windows: rules.staleWindows(cc), varyNames, age: rules.initialAge(final) };
  }

  uncacheable(fill, reason, status, varyNames) {
    this.counters.uncacheable++;
    // Hit-for-pass (Varnish): remembered per variant, so the next requests for it go straight to
    // the origin, concurrently, instead of queueing behind one another. Only for a 2xx whose
    // headers make it unstorable for every request to the variant: not for a failing origin, a
    // status (206, 304, 412, a redirect) or an answer to this one request's range, precondition
    // or credentials, which say nothing lasting about the variant's other requests.
    if (
      this.hitForPassMs > 0 &&
      VARIANT_WIDE.has(reason) &&
      status >= 200 &&
      status <= 299 &&
      status !== 206 &&
      !fill.authorized &&
      !fill.requestSpecific
    ) {
      const names = varyNames === undefined ? [] : varyNames;
      const key = names.length === 0 ? fill.primary : variantKey(fill.primary, names, fill.requestHeaders);
      const work = this.sharedWork();
      if (work !== undefined) work.setPass(fill.primary, key, names, this.now() + this.hitForPassMs);
      else {
        this.hitForPass.set(key, this.now() + this.hitForPassMs);
        if (names.length > 0) this.hitForPassVary.set(fill.primary, names);
      }
    }
    this.release(fill);
    return reason;
  }

  /** A body grown past maxEntrySize: passed on and not stored; the variant passes for a while. */
  tooLarge(fill, policy) {
    this.counters.tooLarge++;
    this.uncacheable(fill, 'too-large', policy.status, policy.varyNames);
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
      if (name === CACHE_STATUS_HEADER && this.cacheStatus !== undefined) continue; // each response's own
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
    for (const tag of tags) headerBytes += 2 * tag.length + 16; // in the metadata and the tag index
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
    this.hitForPass.delete(key);
    const work = this.sharedWork();
    if (work !== undefined) work.deletePass(key);
    this.release(fill);
    return ok ? entry : undefined;
  }

  // ---- Cache-Status (RFC 9211): each returns the header's value, or undefined when not asked ----

  /** For a 'pass' or 'fill' answer of begin(), or a fill (fillWithoutLock). */
  statusOf(decision) {
    const status = this.cacheStatus;
    if (status === undefined) return undefined;
    if (decision.action === 'pass') return status.pass(decision.reason);
    const fill = decision.action === 'fill' ? decision.fill : decision;
    if (fill.forced) return status.forward('request');
    return status.forward(fill.stale === undefined ? 'miss' : 'stale');
  }

  /** For a stored entry sent (fresh, or stale while it is revalidated). */
  hitStatusOf(entry) {
    return this.cacheStatus === undefined ? undefined : this.cacheStatus.hit(this.ttlOf(entry));
  }

  /** For a stale-if-error copy sent in place of a render answered with `failedStatus`. */
  staleIfErrorStatusOf(entry, failedStatus) {
    if (this.cacheStatus === undefined) return undefined;
    return this.cacheStatus.staleIfError(failedStatus, this.ttlOf(entry));
  }

  // seconds of freshness left, negative once stale (RFC 9211 2.4)
  ttlOf(entry) {
    return Math.floor((entry.freshUntil - this.now()) / 1000);
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

  /** The one 304 decision (http/conditional.js) for a hit: `view` is the request's { method, headers }. */
  isNotModified(view, entry) {
    const yes = isNotModified(view.method, entry.status, view.headers, entry.etag, entry.lastModified, 'shared-cache');
    if (yes) this.counters.notModified++;
    return yes;
  }

  /** A stale-if-error copy standing in for a failed render. */
  servedStaleIfError() {
    this.counters.staleIfError++;
    this.counters.staleServed++;
  }

  /**
   * Renders a stale entry again (RFC 5861 3) through the server, with only what forms its key:
   * the Host, the forwarding headers that were keyed, the values of the entry's Vary names and
   * of keyHeaders; never the triggering client's other headers (its X-Forwarded-For, cookies,
   * credentials). The request carries a ticket (this process's token and a number) that
   * begin() takes back: the refresh then counts as coming from the triggering client's address,
   * not from the server's own (which a `trust proxy` setting may trust), and stores only if it
   * builds the same key. With sharedMemoryStore, one process of the machine refreshes a key at
   * a time (the one holding the segment's refresh lock for it), and the ticket is recorded in
   * the segment, for whichever worker the request reaches.
   */
  refreshInBackground(req, key, entry) {
    if (this.refreshing.has(key) || this.refreshing.size >= this.maxRefreshes || this.pending.has(key)) return;
    const work = this.sharedWork();
    if (work !== undefined) {
      const again = this.refreshElsewhere.peek(key);
      if (again !== undefined && Date.now() < again) return;
      if (!work.lockRefresh(key, this.refreshTimeout)) {
        this.refreshElsewhere.set(key, Date.now() + REFRESH_ELSEWHERE_MS); // another process refreshes it
        return;
      }
      if (again !== undefined) this.refreshElsewhere.delete(key);
      // one may have ended between our look and our lock: what it stored is newer
      const latest = this.memory.get(key);
      if (latest !== undefined && latest.storedAt > entry.storedAt) {
        work.unlockRefresh(key);
        return;
      }
    }
    const headers = req.headers;
    const carried = {};
    if (headers.host !== undefined) carried.host = headers.host;
    // HTTP/2: the site and scheme (the refresher goes over HTTP/2 when they are there)
    if (headers[':authority'] !== undefined) carried[':authority'] = headers[':authority'];
    if (headers[':scheme'] !== undefined) carried[':scheme'] = headers[':scheme'];
    for (const name of inputs.FORWARDING_HEADERS) if (headers[name] !== undefined) carried[name] = headers[name];
    for (const name of entry.varyNames) if (headers[name] !== undefined) carried[name] = headers[name];
    for (const name of this.keyHeaders) if (headers[name] !== undefined) carried[name] = headers[name];
    const socket = req.socket;
    const ticket = { key, remoteAddress: socket === undefined ? undefined : socket.remoteAddress };
    let token;
    let number;
    if (work === undefined) {
      number = String(++this.ticketSeq);
      this.tickets.set(number, ticket);
      token = `${this.token}.${number}`;
    } else {
      token = work.issueTicket(ticket, this.refreshTimeout);
      if (token === undefined) {
        work.unlockRefresh(key); // not recorded (the segment busy): a later hit tries again
        return;
      }
    }
    this.refreshing.add(key);
    this.counters.refreshes++;
    let settled = false;
    const done = (ok) => {
      if (settled) return;
      settled = true;
      if (work === undefined) this.tickets.delete(number);
      else {
        work.dropTicket(token);
        this.endRefreshLock(work, key, entry, ok);
      }
      this.refreshing.delete(key);
      if (!ok) this.counters.refreshFailures++;
    };
    const request = { method: 'GET', url: this.keys.strip(req.url), headers: carried, socket };
    try {
      this.refresher(request, { token, header: REFRESH_HEADER, timeout: this.refreshTimeout }, done);
    } catch {
      done(false);
    }
  }

  /**
   * A refresh ended: its lock goes once the page it rendered is in the segment. The worker that
   * rendered it may store it a moment after the answer ended here; until then (at most
   * REFRESH_STORE_GRACE_MS) the lock stays, so that no one refreshes the page again meanwhile.
   */
  endRefreshLock(work, key, entry, ok) {
    const latest = ok ? this.memory.get(key) : undefined;
    if (!ok || (latest !== undefined && latest.storedAt > entry.storedAt)) {
      work.unlockRefresh(key);
      return;
    }
    work.lockRefresh(key, REFRESH_STORE_GRACE_MS); // ours already: its deadline moves
    this.refreshElsewhere.set(key, Date.now() + REFRESH_STORE_GRACE_MS);
  }

  /** The ticket a refresh request carries, taken once; the request then counts as its trigger's. */
  takeTicket(value, socket) {
    const text = Array.isArray(value) ? value[0] : String(value);
    const dot = text.lastIndexOf('.');
    let ticket;
    if (dot === -1) {
      // one recorded in the segment, by whichever process of the machine sent it
      const work = this.sharedWork();
      ticket = work === undefined ? undefined : work.takeTicket(text);
    } else if (text.slice(0, dot) === this.token) {
      const number = text.slice(dot + 1);
      ticket = this.tickets.get(number);
      this.tickets.delete(number);
    }
    if (ticket === undefined) return undefined;
    if (socket !== undefined && socket !== null && ticket.remoteAddress !== undefined) {
      // the server's own address is no proxy: trust settings see the client the page is for
      try {
        Object.defineProperty(socket, 'remoteAddress', { value: ticket.remoteAddress, configurable: true });
      } catch {
        return REFUSED_TICKET; // a runtime whose sockets take no such property: the refresh is not stored
      }
    }
    return ticket;
  }

  /**
   * RFC 9111 4.4: a successful unsafe request invalidates its target URI's entries, authority
   * included: those of its own Host (every Host when the key has none).
   */
  invalidate(req, status) {
    if (!rules.invalidatesTarget(req.method, status)) return;
    const primary = this.keys.primary(req.url, hostOf(req.headers));
    const target = targetOf(primary);
    let n;
    if (!this.keys.hostInKey) n = this.memory.purgeTarget(target);
    else
      n = this.memory.purgeTargetWhere(target, (key) => {
        if (!key.startsWith(primary)) return false;
        const next = key.charCodeAt(primary.length);
        return Number.isNaN(next) || next === 10 /* \n */ || next === 0;
      });
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
      this.hitForPassVary.clear();
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

  /** The store's machine-wide cache work (sharedMemoryStore with its segment open), or undefined. */
  sharedWork() {
    const work = this.work;
    return work !== undefined && work.available() ? work : undefined;
  }

  /**
   * A hit served out of the shared-memory segment, which is this process's memory layer too:
   * counted in sharedHits (the shared layer's own look-up runs only when that layer missed).
   */
  servedFromSegment() {
    if (this.memory.segment !== undefined) this.shared.counters.sharedHits++;
  }

  /** Which store holds the entries: 'memory', 'redis', or the shared-memory store's own word. */
  storeName() {
    if (this.layers !== undefined) return this.layers.describe();
    return this.shared === undefined ? 'memory' : 'redis';
  }

  stats() {
    return {
      store: this.storeName(),
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
      ...(this.layers === undefined ? {} : this.layers.gauges()),
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
  'unkeyedPasses',
  'badAuthority',
  'hostNotAllowed',
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
  'sharedInvalid',
  'metaHits',
  'purgeMessages',
  'resubscriptions',
];

module.exports = { CacheEngine, DEFAULTS };
