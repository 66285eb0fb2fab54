'use strict';
// The shared layer for a fleet: Redis or Valkey behind the in-memory cache of each process,
// through an ioredis (or iovalkey) client or a node-redis client.
//
// - An entry is one binary string: a 4-byte length, its metadata as JSON, then the body bytes;
//   its TTL is the time left in its freshness plus its stale windows.
// - Keys carry a generation (`<prefix>gen`): purgePrefix() moves it, which makes every shared
//   entry unreachable at once (over-purging is safe; each process purges its memory exactly).
// - Coalescing across processes: the process that misses takes `<prefix>lock:<key>` with
//   SET NX PX (a lease of lockTimeout); the others poll for the entry until the lease ends.
// - Purges reach every process over pub/sub (`<prefix>purge`) and delete the shared entries
//   through per-URL and per-tag sets.
// - Every call has a timeout; a call that fails or times out marks the store down for
//   `retryAfter` ms, during which it is not called at all: a slow or dead Redis costs a render,
//   never a failed or hung request.
const crypto = require('crypto');
const { metadataText, parseMetadata } = require('./entry-metadata');

const UNAVAILABLE = Symbol('unavailable');

function hash(text) {
  return crypto.createHash('sha1').update(text).digest('base64url');
}

// The two client APIs, reduced to what the store needs.
function clientApi(client) {
  if (client && typeof client.getBuffer === 'function') {
    return {
      kind: 'ioredis',
      getBuffer: (key) => client.getBuffer(key),
      get: (key) => client.get(key),
      setPx: (key, value, ms) => client.set(key, value, 'PX', ms),
      setNxPx: (key, value, ms) => client.set(key, value, 'PX', ms, 'NX').then((r) => r === 'OK'),
      del: (keys) => (keys.length ? client.del(...keys) : Promise.resolve(0)),
      sadd: (key, member, ms) => client.multi().sadd(key, member).pexpire(key, ms).exec(),
      smembers: (key) => client.smembers(key),
      incr: (key) => client.incr(key),
      publish: (channel, message) => client.publish(channel, message),
      async subscribe(channel, onMessage, onResubscribed) {
        // its own connection, which may queue the SUBSCRIBE until it is connected (and
        // resubscribes after a reconnection), whatever the user's client says about queueing
        const sub = client.duplicate({ enableOfflineQueue: true, autoResubscribe: true });
        sub.on('error', () => {});
        sub.on('message', (ch, message) => ch === channel && onMessage(message));
        await sub.subscribe(channel);
        // every 'ready' after the first is a reconnection (ioredis resubscribes at once)
        sub.on('ready', onResubscribed);
        return () => sub.disconnect();
      },
    };
  }
  if (client && typeof client.withTypeMapping === 'function') {
    const { RESP_TYPES } = require('redis');
    const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    return {
      kind: 'node-redis',
      getBuffer: (key) => binary.get(key),
      get: (key) => client.get(key),
      setPx: (key, value, ms) => client.set(key, value, { PX: ms }),
      setNxPx: (key, value, ms) => client.set(key, value, { NX: true, PX: ms }).then((r) => r === 'OK'),
      del: (keys) => (keys.length ? client.del(keys) : Promise.resolve(0)),
      sadd: (key, member, ms) => client.multi().sAdd(key, member).pExpire(key, ms).exec(),
      smembers: (key) => client.sMembers(key),
      incr: (key) => client.incr(key),
      publish: (channel, message) => client.publish(channel, message),
      async subscribe(channel, onMessage, onResubscribed) {
        const sub = client.duplicate();
        sub.on('error', () => {});
        await sub.connect();
        await sub.subscribe(channel, (message) => onMessage(message));
        // every 'ready' after the first is a reconnection (node-redis resubscribes with it)
        sub.on('ready', onResubscribed);
        return () => sub.destroy();
      },
    };
  }
  throw new TypeError('options.store must be an ioredis/iovalkey client or a node-redis client');
}

class RedisStore {
  constructor(client, { prefix = 'ssr-native:cache:', timeout = 100, retryAfter = 1000 } = {}) {
    this.api = clientApi(client);
    this.prefix = prefix;
    this.timeout = timeout;
    this.retryAfter = retryAfter;
    this.downUntil = 0;
    this.failures = 0; // failed calls in a row
    this.probing = false;
    this.generation = '0';
    this.origin = crypto.randomBytes(9).toString('base64url'); // this process, in purge messages
    this.counters = {
      sharedHits: 0,
      sharedMisses: 0,
      sharedWrites: 0,
      sharedErrors: 0,
      sharedTimeouts: 0,
      sharedLockWaits: 0,
      purgeMessages: 0,
      resubscriptions: 0,
    };
    this.closers = [];
  }

  /**
   * Subscribes to purges; `apply(message)` purges this process's memory. A subscription that
   * was lost (Redis restarted, the connection dropped) may have missed purges sent meanwhile,
   * which pub/sub does not keep: once it is back, this process drops its whole memory layer
   * (`{ op: 'clear' }`); the shared entries those purges deleted are gone from Redis too, so
   * what it refills is current.
   */
  start(apply) {
    this.apply = apply;
    this.call(() => this.api.get(`${this.prefix}gen`)).then((gen) => {
      if (typeof gen === 'string') this.generation = gen;
    });
    this.api
      .subscribe(
        `${this.prefix}purge`,
        (text) => {
          let message;
          try {
            message = JSON.parse(text);
          } catch {
            return;
          }
          if (message.generation !== undefined) this.generation = String(message.generation);
          if (message.origin === this.origin) return;
          this.counters.purgeMessages++;
          apply(message);
        },
        () => {
          this.counters.resubscriptions++;
          apply({ op: 'clear' });
        },
      )
      .then(
        (close) => this.closers.push(close),
        () => this.counters.sharedErrors++,
      );
  }

  available() {
    return this.failures === 0 || (Date.now() >= this.downUntil && !this.probing);
  }

  /**
   * Runs fn() with the timeout; UNAVAILABLE when the store is down, fails or is too slow. After
   * a failure the store is left alone for retryAfter ms, doubled on each failure in a row (up
   * to 30 s); then one call probes it while the others still skip it. An `urgent` call (a
   * purge's: rare, and lost for every other process if skipped) is tried even then, with the
   * same timeout.
   */
  call(fn, urgent = false) {
    let probe = false;
    if (this.failures > 0 && !urgent) {
      if (Date.now() < this.downUntil || this.probing) return Promise.resolve(UNAVAILABLE);
      this.probing = probe = true;
    }
    return new Promise((resolve) => {
      let settled = false;
      const fail = (counter) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.counters[counter]++;
        this.failures++;
        this.downUntil = Date.now() + Math.min(this.retryAfter * 2 ** Math.min(this.failures - 1, 16), 30000);
        if (probe) this.probing = false;
        resolve(UNAVAILABLE);
      };
      // A timer that fires while the answer waits unread in the socket is not a timeout: when
      // the event loop was held (a render, a burst of them) longer than the timeout, timers run
      // before the loop reads its sockets, so the decision waits for the check phase of that
      // same turn, after the poll phase has read whatever Redis sent. A Redis truly late still
      // times out one turn later.
      const timer = setTimeout(() => setImmediate(fail, 'sharedTimeouts'), this.timeout);
      let promise;
      try {
        promise = Promise.resolve(fn());
      } catch (err) {
        promise = Promise.reject(err);
      }
      promise.then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.failures = 0;
          if (probe) this.probing = false;
          resolve(value);
        },
        () => fail('sharedErrors'),
      );
    });
  }

  entryKey(key) {
    return `${this.prefix}e:${this.generation}:${hash(key)}`;
  }

  varyKey(primary) {
    return `${this.prefix}v:${this.generation}:${hash(primary)}`;
  }

  /** The entry stored for `key`, its Vary names for a primary key, or undefined. */
  async get(key, primary) {
    const [blob, vary] = await Promise.all([
      this.call(() => this.api.getBuffer(this.entryKey(key))),
      key === primary ? this.call(() => this.api.get(this.varyKey(primary))) : undefined,
    ]);
    if (blob === UNAVAILABLE) return undefined;
    const entry = decode(blob);
    if (entry !== undefined) {
      this.counters.sharedHits++;
      return { entry };
    }
    this.counters.sharedMisses++;
    if (typeof vary === 'string') {
      try {
        const names = JSON.parse(vary);
        if (Array.isArray(names) && names.length) return { varyNames: names.map(String) };
      } catch {
        // not ours: ignored
      }
    }
    return undefined;
  }

  lock(key, ms) {
    return this.call(() =>
      this.api.setNxPx(`${this.prefix}lock:${this.generation}:${hash(key)}`, this.origin, Math.max(1, Math.round(ms))),
    ).then((r) => r === true);
  }

  unlock(key) {
    this.call(() => this.api.del([`${this.prefix}lock:${this.generation}:${hash(key)}`]));
  }

  put(entry, ttlMs) {
    if (ttlMs <= 0) return;
    const ms = Math.max(1, Math.round(ttlMs));
    const redisKey = this.entryKey(entry.key);
    this.counters.sharedWrites++;
    this.call(() => this.api.setPx(redisKey, encode(entry), ms));
    if (entry.varyNames.length)
      this.call(() => this.api.setPx(this.varyKey(entry.primary), JSON.stringify(entry.varyNames), ms));
    this.call(() => this.api.sadd(`${this.prefix}t:${hash(entry.target)}`, redisKey, ms));
    for (const tag of entry.tags) this.call(() => this.api.sadd(`${this.prefix}g:${hash(tag)}`, redisKey, ms));
  }

  /** Deletes the shared entries of a purge and tells the other processes. */
  async purge(message) {
    const out = { ...message, origin: this.origin };
    if (message.op === 'prefix' || message.op === 'clear') {
      const gen = await this.call(() => this.api.incr(`${this.prefix}gen`), true);
      if (gen !== UNAVAILABLE) {
        this.generation = String(gen);
        out.generation = this.generation;
      }
    } else {
      const set =
        message.op === 'tag' ? `${this.prefix}g:${hash(message.arg)}` : `${this.prefix}t:${hash(message.arg)}`;
      const members = await this.call(() => this.api.smembers(set), true);
      if (Array.isArray(members)) await this.call(() => this.api.del([...members, set]), true);
    }
    await this.call(() => this.api.publish(`${this.prefix}purge`, JSON.stringify(out)), true);
  }

  close() {
    for (const close of this.closers) {
      try {
        close();
      } catch {
        // already closed
      }
    }
  }
}

function encode(entry) {
  const json = Buffer.from(metadataText(entry));
  const out = Buffer.allocUnsafe(4 + json.length + entry.body.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  entry.body.copy(out, 4 + json.length);
  return out;
}

// An entry from its stored bytes; undefined for anything that is not one.
function decode(blob) {
  if (!Buffer.isBuffer(blob) || blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (4 + length > blob.length) return undefined;
  const meta = parseMetadata(blob.toString('utf8', 4, 4 + length));
  if (meta === undefined) return undefined;
  const body = Buffer.allocUnsafeSlow(blob.length - 4 - length);
  blob.copy(body, 0, 4 + length);
  if (String(body.length) !== meta.length) return undefined;
  return { ...meta, body };
}

module.exports = { RedisStore, UNAVAILABLE, encode, decode };
