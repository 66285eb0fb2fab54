'use strict';
// The shared layer for a fleet: Redis or Valkey behind the in-memory cache of each process,
// through an ioredis (or iovalkey) client or a node-redis client.
//
// - An entry is one binary string: its index tokens (below) as text lines, a 4-byte length, its
//   metadata as JSON, then the body bytes; its TTL is the time left in its freshness plus its
//   stale windows. One script writes it (EVALSHA: one round trip) and one reads it.
// - Purges by URL and by tag: each URL (target) and each tag has an index key holding a token;
//   an entry records the tokens of its URL and tags when written, and the read script hands it
//   out only while they all still hold them. A purge deletes the index key: every entry that
//   recorded it is then refused (and deleted) on its next read, wherever it is, without a list
//   of members to walk. An index key lives as long as its longest-lived entry (the write
//   script only ever extends its TTL), and one that is gone (expired, evicted by maxmemory)
//   refuses its entries too: a purge can miss nothing, an eviction over-purges at worst.
// - Keys carry a generation (`<prefix>gen`): purgePrefix() moves it, which makes every shared
//   entry unreachable at once (over-purging is safe; each process purges its memory exactly).
// - Coalescing across processes: the process that misses takes `<prefix>lock:<key>` with
//   SET NX PX (a lease of lockTimeout); the others poll for the entry until the lease ends.
// - Purges reach every process over pub/sub (`<prefix>purge`); a message that is not one of
//   ours is dropped.
// - Whatever is read back is checked (entry-metadata.js storedEntry): anyone who can write to
//   Redis can put any bytes there; an entry that is not valid is deleted and the page rendered.
// - Every call has a timeout; a call that fails or times out marks the store down for
//   `retryAfter` ms, during which it is not called at all: a slow or dead Redis costs a render,
//   never a failed or hung request. An error reply (OOM under maxmemory, a key of another type)
//   is Redis answering: it fails that call only. A client still connecting (no offline queue)
//   is waited for within the call's timeout, and a back-off taken while it was away ends once it is
//   connected again.
const crypto = require('crypto');
const { metadataText, parseJson, storedEntry, FIELD_NAME } = require('./entry-metadata');
const { storeChoiceError } = require('./store-choice');

const UNAVAILABLE = Symbol('unavailable');
const PURGED = 0; // what the read script answers for an entry a purge reached
const OPS = new Set(['url', 'prefix', 'tag', 'clear']);
const MAX_PURGE_ARG = 8192;

// KEYS: the entry, its primary's Vary key, its index keys (URL, then tags). ARGV: the entry's
// bytes, its TTL in ms, a token for an index key that holds none, the Vary names as JSON ('' for
// none). An index key's TTL and the Vary key's only grow.
const WRITE_SCRIPT = `
local ms = tonumber(ARGV[2])
local head = { 'ssr1 ' .. (#KEYS - 2) .. '\\n' }
for i = 3, #KEYS do
  local token = redis.call('GET', KEYS[i])
  if token then
    local left = redis.call('PTTL', KEYS[i])
    if left >= 0 and left < ms then redis.call('PEXPIRE', KEYS[i], ms) end
  else
    token = ARGV[3]
    redis.call('SET', KEYS[i], token, 'PX', ms)
  end
  head[#head + 1] = KEYS[i] .. ' ' .. token .. '\\n'
end
if ARGV[4] ~= '' then
  local left = redis.call('PTTL', KEYS[2])
  redis.call('SET', KEYS[2], ARGV[4], 'PX', math.max(left, ms))
end
head[#head + 1] = ARGV[1]
redis.call('SET', KEYS[1], table.concat(head), 'PX', ms)
return 1
`;

// KEYS: the entry. ARGV: the prefix every index key has. The entry, or 0 (and it is deleted)
// when one of its index keys no longer holds the token it recorded; bytes that are not ours
// come back as they are, for the caller to refuse.
const READ_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local n, at = string.match(v, '^ssr1 (%d+)\\n()')
if not n or tonumber(n) > 128 then return v end
local prefix = ARGV[1]
for i = 1, tonumber(n) do
  local key, token, nxt = string.match(v, '^([^ \\n]+) ([^ \\n]+)\\n()', at)
  if not key or string.sub(key, 1, #prefix) ~= prefix then return v end
  if redis.pcall('GET', key) ~= token then
    redis.call('DEL', KEYS[1])
    return 0
  end
  at = nxt
end
return v
`;

const sha1hex = (text) => crypto.createHash('sha1').update(text).digest('hex');
const WRITE_SHA = sha1hex(WRITE_SCRIPT);
const READ_SHA = sha1hex(READ_SCRIPT);
const readyWaits = new WeakMap(); // client -> Promise of its next 'ready'
const isNoScript = (err) => err instanceof Error && /^NOSCRIPT/.test(err.message);

function hash(text) {
  return crypto.createHash('sha1').update(text).digest('base64url');
}

// node-redis's exports (its reply types), from the app's own `redis`: required in a try block, so
// a bundler that cannot resolve it (esbuild) leaves the failure to run time instead of failing the
// build of every app that does not use node-redis.
function nodeRedis() {
  try {
    return require('redis');
  } catch (cause) {
    const err = new Error("a node-redis client as the cache's store needs the 'redis' package beside it", { cause });
    err.code = 'ERR_SSR_NATIVE_PEER_MISSING';
    throw err;
  }
}

// The two client APIs, reduced to what the store needs.
function clientApi(client) {
  if (client && typeof client.getBuffer === 'function') {
    return {
      kind: 'ioredis',
      ready: () => client.status === 'ready',
      isReply: (err) => err instanceof Error && err.name === 'ReplyError',
      script(sha, text, keys, args) {
        return client
          .evalshaBuffer(sha, keys.length, ...keys, ...args)
          .catch((err) =>
            isNoScript(err) ? client.evalBuffer(text, keys.length, ...keys, ...args) : Promise.reject(err),
          );
      },
      get: (key) => client.get(key),
      setNxPx: (key, value, ms) => client.set(key, value, 'PX', ms, 'NX').then((r) => r === 'OK'),
      setNx: (key, value) => client.set(key, value, 'NX'),
      del: (keys) => (keys.length ? client.del(...keys) : Promise.resolve(0)),
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
    const { RESP_TYPES, ErrorReply } = nodeRedis();
    const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    return {
      kind: 'node-redis',
      ready: () => client.isReady,
      isReply: (err) => err instanceof ErrorReply,
      script(sha, text, keys, args) {
        const options = { keys, arguments: args };
        return binary
          .evalSha(sha, options)
          .catch((err) => (isNoScript(err) ? binary.eval(text, options) : Promise.reject(err)));
      },
      get: (key) => client.get(key),
      setNxPx: (key, value, ms) => client.set(key, value, { NX: true, PX: ms }).then((r) => r === 'OK'),
      setNx: (key, value) => client.set(key, value, { NX: true }),
      del: (keys) => (keys.length ? client.del(keys) : Promise.resolve(0)),
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
  throw storeChoiceError(client);
}

class RedisStore {
  constructor(client, { prefix = 'ssr-native:cache:', timeout = 100, retryAfter = 1000 } = {}) {
    this.api = clientApi(client);
    this.client = client;
    this.prefix = prefix;
    this.timeout = timeout;
    this.retryAfter = retryAfter;
    this.downUntil = 0;
    this.failures = 0; // failed calls in a row
    this.probing = false;
    this.generation = '0';
    this.origin = crypto.randomBytes(9).toString('base64url'); // this process, in purge messages
    this.writes = 0; // with origin, the token of an index key this process creates
    this.counters = {
      sharedHits: 0,
      sharedMisses: 0,
      sharedWrites: 0,
      sharedErrors: 0,
      sharedTimeouts: 0,
      sharedLockWaits: 0,
      sharedInvalid: 0,
      purgeMessages: 0,
      resubscriptions: 0,
    };
    this.closers = [];
    this.offline = false; // the last failure happened while the client was not connected
  }

  /**
   * Subscribes to purges; `apply(message)` purges this process's memory. A subscription that
   * was lost (Redis restarted, the connection dropped) may have missed purges sent meanwhile,
   * which pub/sub does not keep: once it is back, this process drops its whole memory layer
   * (`{ op: 'clear' }`); the shared entries those purges reached are refused by Redis too, so
   * what it refills is current.
   */
  start(apply) {
    this.apply = apply;
    // No generation in Redis (never purged, or evicted by an allkeys-* maxmemory policy): one is
    // drawn at random rather than taken as 0, so entries of a generation a clear() left behind
    // never come back.
    const genKey = `${this.prefix}gen`;
    this.call(() => this.api.get(genKey)).then(async (gen) => {
      if (gen === null) {
        const drawn = String(crypto.randomInt(1, 2 ** 47));
        await this.call(() => this.api.setNx(genKey, drawn));
        gen = await this.call(() => this.api.get(genKey));
      }
      if (isGeneration(gen)) this.generation = gen;
    });
    this.api
      .subscribe(
        `${this.prefix}purge`,
        (text) => {
          // whatever is published on the channel: a message that is not one of ours is dropped
          const message = purgeMessage(text);
          if (message === undefined) return;
          if (message.generation !== undefined) this.generation = message.generation;
          if (message.origin === this.origin) return;
          this.counters.purgeMessages++;
          try {
            apply(message);
          } catch {
            // a purge of this process's memory that fails leaves its entries to expire
          }
        },
        () => {
          this.counters.resubscriptions++;
          try {
            apply({ op: 'clear' });
          } catch {
            // as above
          }
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

  // Resolves when the client is ready: at once, or on its next 'ready' (one listener per client,
  // whatever the number of calls and caches waiting). The call's own timeout bounds the wait.
  whenReady() {
    if (this.api.ready()) return Promise.resolve();
    let wait = readyWaits.get(this.client);
    if (wait === undefined) {
      wait = new Promise((resolve) =>
        this.client.once('ready', () => {
          readyWaits.delete(this.client);
          resolve();
        }),
      );
      readyWaits.set(this.client, wait);
    }
    return wait;
  }

  /**
   * Runs fn() with the timeout; UNAVAILABLE when the store is down, fails or is too slow. After
   * a failure the store is left alone for retryAfter ms, doubled on each failure in a row (up
   * to 30 s); then one call probes it while the others still skip it. An `urgent` call (a
   * purge's: rare, and lost for every other process if skipped) is tried even then, with the
   * same timeout. A client that is not ready (connecting, reconnecting: with no offline queue it
   * would refuse the command at once) is waited for within the timeout; an error reply is
   * Redis answering, and fails only its call.
   */
  call(fn, urgent = false) {
    let probe = false;
    // The client reconnected since a failure it had while away: what failed says nothing now.
    if (this.failures > 0 && this.offline && this.api.ready()) {
      this.failures = 0;
      this.offline = false;
    }
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
        this.offline = !this.api.ready();
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
        promise = this.api.ready() ? Promise.resolve(fn()) : this.whenReady().then(() => (settled ? undefined : fn()));
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
        (err) => {
          if (settled || !this.api.isReply(err)) return fail('sharedErrors');
          settled = true;
          clearTimeout(timer);
          this.counters.sharedErrors++;
          if (probe) this.probing = false;
          resolve(UNAVAILABLE);
        },
      );
    });
  }

  entryKey(key) {
    return `${this.prefix}e:${this.generation}:${hash(key)}`;
  }

  varyKey(primary) {
    return `${this.prefix}v:${this.generation}:${hash(primary)}`;
  }

  // The index keys purge(url) and purgeTag(tag) delete.
  urlIndex(target) {
    return `${this.prefix}url:${hash(target)}`;
  }

  tagIndex(tag) {
    return `${this.prefix}tag:${hash(tag)}`;
  }

  /** The entry stored for `key`, its Vary names for a primary key, or undefined. */
  async get(key, primary) {
    const redisKey = this.entryKey(key);
    const [blob, vary] = await Promise.all([
      this.call(() => this.api.script(READ_SHA, READ_SCRIPT, [redisKey], [this.prefix])),
      key === primary ? this.call(() => this.api.get(this.varyKey(primary))) : undefined,
    ]);
    if (blob === UNAVAILABLE) return undefined;
    if (blob !== null && blob !== PURGED) {
      const entry = decode(blob, key, this);
      if (entry !== undefined) {
        this.counters.sharedHits++;
        return { entry };
      }
      // not an entry of ours, or not one that may be sent: it goes, and the page is rendered
      this.counters.sharedInvalid++;
      this.call(() => this.api.del([redisKey]));
    }
    this.counters.sharedMisses++;
    if (typeof vary === 'string') {
      const names = varyNames(vary);
      if (names !== undefined) return { varyNames: names };
    }
    return undefined;
  }

  /**
   * Whether this process may render `key` for the fleet: false only when another process holds
   * the lease. A lease that could not be asked for (the store down, or refusing writes: OOM
   * under maxmemory with noeviction) lets this process render, as if it held it, rather than
   * wait lockTimeout for an entry no one may be able to write.
   */
  lock(key, ms) {
    return this.call(() =>
      this.api.setNxPx(`${this.prefix}lock:${this.generation}:${hash(key)}`, this.origin, Math.max(1, Math.round(ms))),
    ).then((r) => r !== false);
  }

  unlock(key) {
    this.call(() => this.api.del([`${this.prefix}lock:${this.generation}:${hash(key)}`]));
  }

  /**
   * Writes an entry (one script, one round trip): the entry key, the Vary key of its primary
   * when it varies, and the index keys of its URL and tags (shared by every entry of that URL
   * or tag; their TTL only ever grows).
   */
  put(entry, ttlMs) {
    if (ttlMs <= 0) return;
    const ms = String(Math.max(1, Math.round(ttlMs)));
    const keys = [this.entryKey(entry.key), this.varyKey(entry.primary), this.urlIndex(entry.target)];
    for (const tag of entry.tags) keys.push(this.tagIndex(tag));
    const args = [
      encode(entry),
      ms,
      `${this.origin}.${++this.writes}`,
      entry.varyNames.length ? JSON.stringify(entry.varyNames) : '',
    ];
    this.counters.sharedWrites++;
    this.call(() => this.api.script(WRITE_SHA, WRITE_SCRIPT, keys, args));
  }

  /** Makes the shared entries of a purge unreachable and tells the other processes. */
  async purge(message) {
    const out = { ...message, origin: this.origin };
    if (message.op === 'prefix' || message.op === 'clear') {
      const gen = await this.call(() => this.api.incr(`${this.prefix}gen`), true);
      if (gen !== UNAVAILABLE) {
        this.generation = String(gen);
        out.generation = this.generation;
      }
    } else {
      const index = message.op === 'tag' ? this.tagIndex(message.arg) : this.urlIndex(message.arg);
      await this.call(() => this.api.del([index]), true);
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

const isGeneration = (value) => typeof value === 'string' && /^\d{1,20}$/.test(value);

// A purge message from the channel, or undefined for anything that is not one of ours.
function purgeMessage(text) {
  if (typeof text !== 'string' || text.length > MAX_PURGE_ARG * 2) return undefined;
  const m = parseJson(text);
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const { op, arg, origin, generation } = m;
  if (!OPS.has(op) || typeof arg !== 'string' || arg.length > MAX_PURGE_ARG) return undefined;
  if (origin !== undefined && typeof origin !== 'string') return undefined;
  if (generation !== undefined && !isGeneration(generation)) return undefined;
  return { op, arg, origin, generation };
}

// Vary names from the primary's Vary key, or undefined.
function varyNames(text) {
  const names = parseJson(text);
  if (!Array.isArray(names) || names.length === 0 || names.length > 64) return undefined;
  for (const name of names) if (typeof name !== 'string' || !FIELD_NAME.test(name)) return undefined;
  return names;
}

// The entry's part of the stored value (what the write script puts after the index lines).
function encode(entry) {
  const json = Buffer.from(metadataText(entry));
  const out = Buffer.allocUnsafe(4 + json.length + entry.body.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  entry.body.copy(out, 4 + json.length);
  return out;
}

const HEAD = Buffer.from('ssr1 ');
const NL = 0x0a;

// The entry stored under `key` from its stored bytes; undefined for anything that is not one,
// or one that may not be sent (entry-metadata.js storedEntry), or whose index lines do not
// name its URL's and tags' index keys (a purge could not reach it).
function decode(blob, key, store) {
  if (!Buffer.isBuffer(blob) || blob.length < HEAD.length + 6 || !blob.subarray(0, HEAD.length).equals(HEAD))
    return undefined;
  let at = blob.indexOf(NL, HEAD.length);
  if (at === -1) return undefined;
  const count = Number(blob.toString('latin1', HEAD.length, at));
  if (!Number.isInteger(count) || count < 0 || count > 128) return undefined;
  at++;
  const index = new Set();
  for (let i = 0; i < count; i++) {
    const end = blob.indexOf(NL, at);
    if (end === -1) return undefined;
    const line = blob.toString('latin1', at, end);
    index.add(line.slice(0, line.indexOf(' ')));
    at = end + 1;
  }
  if (at + 4 > blob.length) return undefined;
  const length = blob.readUInt32BE(at);
  at += 4;
  if (at + length > blob.length) return undefined;
  const meta = parseJson(blob.toString('utf8', at, at + length));
  if (meta === undefined) return undefined;
  at += length;
  const body = Buffer.allocUnsafeSlow(blob.length - at);
  blob.copy(body, 0, at);
  const entry = storedEntry(meta, body, key);
  if (entry === undefined || !index.has(store.urlIndex(entry.target))) return undefined;
  for (const tag of entry.tags) if (!index.has(store.tagIndex(tag))) return undefined;
  return entry;
}

module.exports = { RedisStore, UNAVAILABLE, encode, decode, purgeMessage };
