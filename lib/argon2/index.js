'use strict';
// require('ssr-native/argon2'): a drop-in for the argon2 npm package 0.45 (same exports,
// defaults, validation, errors and PHC strings), hashing on ssr-native's own thread pool,
// behind a semaphore that rejects with SemaphoreFullError (HTTP 429) when capacity is full.
const { createHash, randomBytes, timingSafeEqual } = require('crypto');
const { performance } = require('perf_hooks');
const fs = require('fs');
const os = require('os');
const native = require('../native.js');
const { serialize, deserialize } = require('./phc.js');
const { Semaphore, SemaphoreFullError } = require('./semaphore.js');
const { invalidType, outOfRange } = require('../validate.js');
const { ownOptions, peerOptions } = require('../options.js');

const argon2d = 0;
const argon2i = 1;
const argon2id = 2;

const types = Object.freeze({ argon2d, argon2i, argon2id });
const names = Object.freeze({
  [argon2d]: 'argon2d',
  [argon2i]: 'argon2i',
  [argon2id]: 'argon2id',
});

const defaults = Object.freeze({
  hashLength: 32,
  memoryCost: 1 << 16,
  parallelism: 4,
  timeCost: 3,
  type: argon2id,
  version: 0x13,
});

const EMPTY = Buffer.alloc(0);

// ---- Admission control ---------------------------------------------------------------

// Defaults are read from the pool on first use, not at require time: a server is often
// pinned to its CPUs (taskset, cgroups) after it has started.
const settings = {
  maxConcurrency: 1,
  maxQueue: 8,
  queueTimeoutMs: 5000,
  rejectDelayMs: 'auto',
  threads: 1,
  priority: 10,
  policy: 'normal',
  shared: false, // false, or the name of a machine-wide budget (a cluster's workers: automatic)
  sharedSlots: 0, // its permits; 0: the CPUs this process may use
};
// Waiting calls per running one. Floods arrive in bursts: with a queue of 2 per slot a pinned
// server sat idle between bursts (6.8 registrations/s where it can do 17); 8 keeps it busy
// (argon2-flood), and a queued call still waits at most ~8 hash times (and queueTimeoutMs).
const QUEUE_PER_SLOT = 8;
// Linux scheduling policies of the pool threads (index = HashPool::Policy).
const POLICIES = ['normal', 'batch', 'idle'];
const explicit = new Set();
const semaphore = new Semaphore(settings);
let defaultsResolved = false;

// Reads the defaults (threads, priority, policy) from the pool. They are final once the first
// hash has created the pool; before that (configure() at start-up, stats()) they are read
// again each time, so a taskset applied after configure() still sizes the pool.
function resolveDefaults(final = false) {
  if (defaultsResolved) return;
  defaultsResolved = final;
  const pool = native.argon2PoolStats();
  if (!explicit.has('threads')) settings.threads = pool.threads;
  if (!explicit.has('priority')) settings.priority = pool.priority;
  if (!explicit.has('policy')) settings.policy = POLICIES[pool.policy] || 'normal';
  if (final && !explicit.has('shared')) {
    // Workers of one cluster share one budget by default, sized to the CPUs they may use.
    const name = clusterName();
    if (name !== null) {
      settings.shared = name;
      joinBudget(name, explicit.has('sharedSlots') ? settings.sharedSlots : availableCpus(), true);
    }
  }
  applySettings();
}

// ---- Machine-wide budget ---------------------------------------------------------------

// The budget this process belongs to: { name, slots, auto } or null.
let sharedBudget = null;

function availableCpus() {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

// The name of the cluster this process is a worker of, or null. node:cluster workers are
// forked by their primary; PM2 cluster-mode instances by PM2's daemon, one app per name.
function clusterName() {
  const env = process.env;
  if (env.exec_mode === 'cluster_mode' && (env.pm_id !== undefined || env.NODE_APP_INSTANCE !== undefined)) {
    return `pm2-${process.ppid}-${env.name || ''}`;
  }
  if (require('cluster').isWorker) return `cluster-${process.ppid}`;
  return null;
}

function lockFileOf(name) {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 24);
  return require('path').join(dir, `ssr-native-argon2-${uid}-${digest}.lock`);
}

function joinBudget(name, slots, auto) {
  if (name === null) {
    native.argon2ConfigureShared(null);
    sharedBudget = null;
    return;
  }
  try {
    native.argon2ConfigureShared(lockFileOf(name), slots);
    sharedBudget = { name, slots, auto };
  } catch (err) {
    if (!auto) throw err;
    // Automatic (cluster) budget unavailable: keep the per-process limits, say so once.
    sharedBudget = null;
    process.emitWarning(`${err.message}; hashing limits stay per process`, { code: 'SSR_NATIVE_ARGON2_SHARED' });
  }
}

function applySettings() {
  if (!explicit.has('maxConcurrency')) settings.maxConcurrency = settings.threads;
  if (!explicit.has('maxQueue')) settings.maxQueue = QUEUE_PER_SLOT * settings.maxConcurrency;
  semaphore.maxConcurrency = settings.maxConcurrency;
  semaphore.maxQueue = settings.maxQueue;
  semaphore.queueTimeoutMs = settings.queueTimeoutMs;
  semaphore.rejectDelayMs = settings.rejectDelayMs;
  semaphore.drain();
}

function checkInteger(options, name, min, max) {
  const value = options[name];
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw invalidType(`options.${name}`, 'a number', value);
  }
  if (!(value >= min && value <= max) || (value !== Infinity && !Number.isInteger(value))) {
    throw outOfRange(`options.${name}`, `an integer from ${min} to ${max}`, value);
  }
}

/**
 * configure({ maxConcurrency, maxQueue, queueTimeoutMs, threads, priority }) -> settings.
 * maxConcurrency and maxQueue follow `threads` (1x and 8x) unless set themselves.
 */
const CONFIGURE_OPTIONS = [
  ...['maxConcurrency', 'maxQueue', 'queueTimeoutMs', 'rejectDelayMs', 'threads', 'priority', 'policy'],
  ...['shared', 'sharedSlots'],
];

function configure(options = {}) {
  if (typeof options !== 'object' || options === null) {
    throw invalidType('options', 'an object', options);
  }
  ownOptions(options, CONFIGURE_OPTIONS, 'configure(options)');
  if (options.threads !== undefined) checkInteger(options, 'threads', 1, 1024);
  if (options.priority !== undefined) checkInteger(options, 'priority', 0, 19);
  if (options.maxConcurrency !== undefined) checkInteger(options, 'maxConcurrency', 1, 1e6);
  if (options.maxQueue !== undefined) checkInteger(options, 'maxQueue', 0, Infinity);
  if (options.queueTimeoutMs !== undefined) {
    checkInteger(options, 'queueTimeoutMs', 0, Infinity);
  }
  if (options.rejectDelayMs !== undefined && options.rejectDelayMs !== 'auto') {
    checkInteger(options, 'rejectDelayMs', 0, 60000);
  }
  if (options.shared !== undefined && options.shared !== false) {
    if (typeof options.shared !== 'string') throw invalidType('options.shared', 'a string or false', options.shared);
    if (options.shared.length === 0 || options.shared.length > 200) {
      throw outOfRange('options.shared', 'a name of 1 to 200 characters', options.shared);
    }
  }
  if (options.sharedSlots !== undefined) checkInteger(options, 'sharedSlots', 0, 4096);
  if (options.policy !== undefined && !POLICIES.includes(options.policy)) {
    throw invalidType('options.policy', `one of ${POLICIES.join(', ')}`, options.policy);
  }

  resolveDefaults();
  for (const key of CONFIGURE_OPTIONS) {
    if (options[key] !== undefined) {
      settings[key] = options[key];
      explicit.add(key);
    }
  }
  if (options.threads !== undefined || options.priority !== undefined || options.policy !== undefined) {
    native.argon2Configure({
      // 0: the CPUs of the affinity mask when the pool starts (a later taskset still counts).
      threads: explicit.has('threads') ? settings.threads : 0,
      priority: settings.priority,
      policy: POLICIES.indexOf(settings.policy),
    });
  }
  if (options.shared !== undefined || (options.sharedSlots !== undefined && sharedBudget !== null)) {
    const name = settings.shared === false ? null : settings.shared;
    joinBudget(name, settings.sharedSlots || availableCpus(), false);
  }
  applySettings();
  return { ...settings };
}

// ---- Hash timings ------------------------------------------------------------------------
// How long each admitted hash took, from the native call to its result (the pool's queue and
// the hash; not the wait for admission): counts per bucket of HASH_SECONDS_BOUNDS (the last
// count is above every bound), plus their sum and number. Two clock reads and a short scan per
// hash, which itself takes milliseconds; metrics exporters read it at scrape time.
const HASH_SECONDS_BOUNDS = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
const hashSeconds = { counts: new Array(HASH_SECONDS_BOUNDS.length + 1).fill(0), sum: 0, count: 0 };

function recordHashSeconds(seconds) {
  let i = 0;
  while (i < HASH_SECONDS_BOUNDS.length && seconds > HASH_SECONDS_BOUNDS[i]) i++;
  hashSeconds.counts[i]++;
  hashSeconds.sum += seconds;
  hashSeconds.count++;
}

/**
 * stats() -> { active, queued, rejected, completed, shared, hashSeconds } for this JavaScript
 * thread; hashSeconds: { bounds, counts (per bucket, one more than bounds), sum, count }.
 */
function stats() {
  resolveDefaults();
  return {
    active: semaphore.active,
    queued: semaphore.waiters.length,
    rejected: semaphore.rejected,
    completed: semaphore.completed,
    hashSeconds: {
      bounds: HASH_SECONDS_BOUNDS,
      counts: hashSeconds.counts.slice(),
      sum: hashSeconds.sum,
      count: hashSeconds.count,
    },
    // The machine-wide budget: its permits, those held by all its processes and by this one.
    shared: sharedBudget === null ? null : { name: sharedBudget.name, ...native.argon2SharedStats() },
  };
}

// ssr-native/metrics reads the pool at scrape time.
// (The counters directly, not stats(): that also reads the pool's defaults, a native call.)
require('../stat-sources').addSource('argon2', 'pool', () => {
  const shared = sharedBudget === null ? null : native.argon2SharedStats();
  return {
    queued: semaphore.waiters.length,
    inFlight: semaphore.active,
    hashes: semaphore.completed,
    rejected: semaphore.rejected,
    ...(shared === null ? {} : { sharedPermits: shared.slots, sharedPermitsHeld: shared.held }),
    hashDurationSeconds: {
      bounds: HASH_SECONDS_BOUNDS,
      counts: hashSeconds.counts.slice(),
      sum: hashSeconds.sum,
      count: hashSeconds.count,
    },
  };
});

// Runs one hash with a permit. The arguments were converted by the caller, so a TypeError
// for a bad password comes before (and regardless of) admission. Numbers are coerced with
// `>>> 0`, as the argon2 package's binding does.
async function admittedHash({ password, salt, secret, associatedData, hashLength, m, t, p, type, version }) {
  resolveDefaults(true);
  const release = await semaphore.acquire();
  const started = performance.now();
  try {
    return await native.argon2Hash({
      password,
      salt,
      secret,
      associatedData,
      hashLength: Number(hashLength) >>> 0,
      memoryCost: Number(m) >>> 0,
      timeCost: Number(t) >>> 0,
      parallelism: Number(p) >>> 0,
      type: Number(type) >>> 0,
      version: Number(version) >>> 0,
    });
  } finally {
    recordHashSeconds((performance.now() - started) / 1000);
    release();
  }
}

// ---- The argon2 package's API ----------------------------------------------------------

// Its option names; it ignores others, so they draw one warning (a typo such as `memorycost`
// would silently hash with the default)
const HASH_OPTIONS = [...Object.keys(defaults), 'salt', 'raw', 'secret', 'associatedData'];
const VERIFY_OPTIONS = ['secret'];
const NEEDS_REHASH_OPTIONS = ['memoryCost', 'timeCost', 'parallelism', 'version'];

/**
 * hash(password, options) -> Promise<string> (PHC, m,t,p order) or Promise<Buffer> (raw).
 */
async function hash(password, options) {
  peerOptions(options, HASH_OPTIONS, 'hash(password, options)');
  const { raw, salt: givenSalt, ...rest } = { ...defaults, ...options };

  if (rest.hashLength > 2 ** 32 - 1) throw new RangeError('Hash length is too large');
  if (rest.memoryCost > 2 ** 32 - 1) throw new RangeError('Memory cost is too large');
  if (rest.timeCost > 2 ** 32 - 1) throw new RangeError('Time cost is too large');
  if (rest.parallelism > 2 ** 24 - 1) throw new RangeError('Parallelism is too large');

  // 16 bytes from the CSPRNG directly: no libuv thread-pool hop for so little.
  const salt = givenSalt ?? randomBytes(16);
  const {
    hashLength,
    secret = EMPTY,
    type,
    version,
    memoryCost: m,
    timeCost: t,
    parallelism: p,
    associatedData: data = EMPTY,
  } = rest;

  const result = await admittedHash({
    password: Buffer.from(password),
    salt,
    secret,
    associatedData: data,
    hashLength,
    m,
    t,
    p,
    type,
    version,
  });
  if (raw) return result;

  // The PHC string format's own order (m, t, p); the argon2 package writes m, p, t.
  const params = { m, t, p };
  if (data.byteLength > 0) params.data = data;
  return serialize({ id: names[type], version, params, salt, hash: result });
}

/**
 * needsRehash(digest, { memoryCost, timeCost, parallelism, version }) -> boolean: whether the
 * digest was made with other parameters than these (the defaults when omitted).
 */
function needsRehash(digest, options = {}) {
  peerOptions(options, NEEDS_REHASH_OPTIONS, 'needsRehash(digest, options)');
  const { memoryCost, timeCost, parallelism, version } = { ...defaults, ...options };
  const {
    version: v,
    params: { m, t, p },
  } = deserialize(digest);
  return (
    Number(v) !== Number(version) ||
    Number(m) !== Number(memoryCost) ||
    Number(t) !== Number(timeCost) ||
    Number(p) !== Number(parallelism)
  );
}

/**
 * verify(digest, password, { secret }) -> Promise<boolean>. Digests of other algorithms
 * (bcrypt, scrypt, ...) give false; malformed ones reject with a TypeError.
 */
async function verify(digest, password, options = {}) {
  peerOptions(options, VERIFY_OPTIONS, 'verify(digest, password, options)');
  const { id, ...rest } = deserialize(digest);
  if (!(id in types)) return false;
  const {
    version = 0x10,
    params: { m, t, p, data = '' },
    salt,
    hash: actual,
  } = rest;
  const { secret = EMPTY } = options;

  // Converted in the argon2 package's order and with its names (JavaScriptCore quotes the
  // expression in its messages), so bad inputs fail with the same error under Node and Bun.
  const dataBytes = Buffer.from(data, 'base64');
  const hashLength = actual.byteLength;
  const passwordBytes = Buffer.from(password);
  const expected = await admittedHash({
    password: passwordBytes,
    salt,
    secret,
    associatedData: dataBytes,
    hashLength,
    m,
    t,
    p,
    type: types[id],
    version,
  });
  return timingSafeEqual(expected, actual);
}

// ---- HTTP helpers ------------------------------------------------------------------------

function isBusy(err) {
  return err instanceof SemaphoreFullError || (err != null && err.code === 'ERR_ARGON2_BUSY');
}

function busyBody(err) {
  return { error: 'Too Many Requests', code: err.code, retryAfter: err.retryAfter };
}

/** Express error handler: SemaphoreFullError -> 429 with Retry-After; others go on. */
function expressErrorHandler() {
  return function argon2BusyHandler(err, req, res, next) {
    if (!isBusy(err) || res.headersSent) return next(err);
    const body = JSON.stringify(busyBody(err));
    res.statusCode = 429;
    res.setHeader('Retry-After', String(err.retryAfter));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
}

/** Koa middleware (use it early): SemaphoreFullError -> 429 with Retry-After. */
function koaMiddleware() {
  return async function argon2Busy(ctx, next) {
    try {
      await next();
    } catch (err) {
      if (!isBusy(err)) throw err;
      ctx.status = 429;
      ctx.set('Retry-After', String(err.retryAfter));
      ctx.body = busyBody(err);
    }
  };
}

module.exports = {
  argon2d,
  argon2i,
  argon2id,
  hash,
  verify,
  needsRehash,
  configure,
  stats,
  SemaphoreFullError,
  expressErrorHandler,
  koaMiddleware,
};
