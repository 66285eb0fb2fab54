/// <reference types="node" />

/** Argon2 variants (the argon2 package's constants). */
export declare const argon2d: 0;
export declare const argon2i: 1;
export declare const argon2id: 2;

export interface Options {
  /** Tag length in bytes (default 32). */
  hashLength?: number;
  /** Passes over memory (default 3). */
  timeCost?: number;
  /** Memory in KiB (default 65536). */
  memoryCost?: number;
  /** Lanes (default 4). */
  parallelism?: number;
  /** argon2d, argon2i or argon2id (default argon2id). */
  type?: 0 | 1 | 2;
  /** 0x10 or 0x13 (default 0x13). */
  version?: number;
  /** Default: 16 random bytes. */
  salt?: Buffer;
  associatedData?: Buffer;
  secret?: Buffer;
}

/** Hashes a password into a PHC string ($argon2id$v=19$m=..,t=..,p=..$salt$hash). */
export declare function hash(password: Buffer | string, options?: Options & { raw?: false }): Promise<string>;
/** Hashes a password into the raw tag. */
export declare function hash(password: Buffer | string, options: Options & { raw: true }): Promise<Buffer>;

/** true if `digest`'s parameters differ from `options` (the defaults when omitted). */
export declare function needsRehash(
  digest: string,
  options?: { timeCost?: number; memoryCost?: number; parallelism?: number; version?: number },
): boolean;

/** Whether `password` matches `digest` (parameters in any order); other algorithms give false. */
export declare function verify(
  digest: string,
  password: Buffer | string,
  options?: { secret?: Buffer },
): Promise<boolean>;

export interface Argon2Settings {
  /** Hashes (and verifies) running at once in this JS thread; default: `threads`. */
  maxConcurrency: number;
  /** Calls waiting for a slot; default 8 x maxConcurrency. Beyond it: SemaphoreFullError. */
  maxQueue: number;
  /** How long a call may wait in the queue before SemaphoreFullError (default 5000; 0: no limit). */
  queueTimeoutMs: number;
  /**
   * How long a rejection for a full queue is held before it settles, in ms, or 'auto' (the
   * default: the recent hash time, 25..1000 ms). Paces clients that retry at once on a 429.
   */
  rejectDelayMs: number | 'auto';
  /** Threads of the process-wide hashing pool; default: the CPUs this process may use. */
  threads: number;
  /** Niceness of the pool threads, 0..19 (default 10): lower priority than the JS thread. */
  priority: number;
  /** Linux scheduling policy of the pool threads (default 'normal'). */
  policy: 'normal' | 'batch' | 'idle';
  /**
   * Name of a machine-wide budget on concurrent hashes shared by every process that uses the
   * same name, or false. node:cluster and PM2 cluster workers join their cluster's by default.
   */
  shared: string | false;
  /** Permits of the machine-wide budget; 0 (default): the CPUs this process may use. */
  sharedSlots: number;
}

/** Changes the limits; returns the settings now in force. */
export declare function configure(options?: Partial<Argon2Settings>): Argon2Settings;

/** Counters for this JS thread. */
export declare function stats(): {
  active: number;
  queued: number;
  rejected: number;
  completed: number;
  /** The machine-wide budget: its permits, held by all its processes, held by this one. */
  shared: { name: string; slots: number; held: number; here: number } | null;
  /** Admitted hashes' durations (native call to result), per bucket: counts[i] are those
   * <= bounds[i] (and above the previous bound); the last count is above every bound. */
  hashSeconds: { bounds: readonly number[]; counts: number[]; sum: number; count: number };
};

/** Rejection when hashing capacity is full (or a queued call waited too long): answer 429. */
export declare class SemaphoreFullError extends Error {
  readonly name: 'SemaphoreFullError';
  readonly code: 'ERR_ARGON2_BUSY';
  readonly status: 429;
  readonly statusCode: 429;
  readonly expose: true;
  /** Seconds after which a retry is likely to be admitted. */
  readonly retryAfter: number;
}

/** Express error handler: SemaphoreFullError -> 429 + Retry-After, other errors passed on. */
export declare function expressErrorHandler(): (
  err: unknown,
  req: unknown,
  res: any,
  next: (err?: unknown) => void,
) => void;

/** Koa middleware: SemaphoreFullError thrown downstream -> 429 + Retry-After. */
export declare function koaMiddleware(): (ctx: any, next: () => Promise<unknown>) => Promise<void>;

declare const argon2: {
  argon2d: typeof argon2d;
  argon2i: typeof argon2i;
  argon2id: typeof argon2id;
  hash: typeof hash;
  verify: typeof verify;
  needsRehash: typeof needsRehash;
  configure: typeof configure;
  stats: typeof stats;
  SemaphoreFullError: typeof SemaphoreFullError;
  expressErrorHandler: typeof expressErrorHandler;
  koaMiddleware: typeof koaMiddleware;
};
export default argon2;
