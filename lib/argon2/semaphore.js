'use strict';
// Admission control for hashing: at most `maxConcurrency` hashes in flight, at most
// `maxQueue` waiting (each for at most `queueTimeoutMs`), everything beyond that rejected
// at once with a SemaphoreFullError, so an overloaded server answers 429 instead of piling
// up 64 MiB hashes and latency. State is per JavaScript thread (each worker has its own).

class SemaphoreFullError extends Error {
  constructor(retryAfter, reason = 'full') {
    super(
      reason === 'timeout'
        ? `argon2: waited too long for hashing capacity; retry after ${retryAfter}s`
        : `argon2: hashing capacity is full; retry after ${retryAfter}s`,
    );
    this.name = 'SemaphoreFullError';
    this.code = 'ERR_ARGON2_BUSY';
    this.status = 429;
    this.statusCode = 429; // what Express's final handler reads
    this.expose = true; // Koa: the message may be shown to the client
    this.retryAfter = retryAfter;
  }
}

class Semaphore {
  constructor({ maxConcurrency, maxQueue, queueTimeoutMs, rejectDelayMs = 0 }) {
    this.maxConcurrency = maxConcurrency;
    this.maxQueue = maxQueue;
    this.queueTimeoutMs = queueTimeoutMs;
    // 'auto' or milliseconds: how long a rejection for a full queue is held before it settles
    // (see rejectionDelay()).
    this.rejectDelayMs = rejectDelayMs;
    this.active = 0;
    this.waiters = []; // FIFO of { grant, timer }
    this.rejected = 0;
    this.completed = 0;
    this.averageMs = 0; // moving average of how long a permit is held
  }

  /** Seconds a rejected caller should wait: the queue ahead of it drained at the seen pace. */
  retryAfter() {
    const ahead = this.active + this.waiters.length;
    const perHashMs = this.averageMs || 100;
    const seconds = Math.ceil(((ahead / Math.max(1, this.maxConcurrency)) * perHashMs) / 1000);
    return Math.max(1, seconds);
  }

  /**
   * Milliseconds a rejection is held before it settles. Clients that retry the moment they get
   * a 429 (naive clients, attackers) otherwise keep the JavaScript thread 100% busy answering
   * 429s, and the hashing pool, at a lower priority, starves: useful work stops. Held for
   * about one hash time, a retry loop costs the server a few 429s per slot freed instead of
   * thousands per second. 'auto': the recent hash time, 25..1000 ms.
   */
  rejectionDelay() {
    if (this.rejectDelayMs !== 'auto') return this.rejectDelayMs;
    const ms = this.averageMs || 100;
    return Math.min(1000, Math.max(25, Math.round(ms)));
  }

  /** Resolves to a release function, or rejects with SemaphoreFullError. */
  acquire() {
    if (this.active < this.maxConcurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.maxQueue) {
      this.rejected++;
      const error = new SemaphoreFullError(this.retryAfter());
      const delay = this.rejectionDelay();
      if (delay <= 0) return Promise.reject(error);
      // One timer per held rejection: its cost is what a connection waiting for it costs.
      return new Promise((resolve, reject) => setTimeout(reject, delay, error));
    }
    return new Promise((resolve, reject) => {
      const waiter = { grant: null, timer: null };
      waiter.grant = () => {
        if (waiter.timer) clearTimeout(waiter.timer);
        resolve(this.releaser());
      };
      if (this.queueTimeoutMs > 0 && Number.isFinite(this.queueTimeoutMs)) {
        waiter.timer = setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index !== -1) this.waiters.splice(index, 1);
          this.rejected++;
          reject(new SemaphoreFullError(this.retryAfter(), 'timeout'));
        }, this.queueTimeoutMs);
        // Pending hashes keep the process alive; a lone timer should not.
        if (typeof waiter.timer.unref === 'function') waiter.timer.unref();
      }
      this.waiters.push(waiter);
    });
  }

  releaser() {
    const started = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const ms = performance.now() - started;
      this.averageMs = this.averageMs === 0 ? ms : this.averageMs * 0.8 + ms * 0.2;
      this.completed++;
      // Hand the permit straight to the oldest waiter, unless the limit was lowered.
      if (this.waiters.length > 0 && this.active <= this.maxConcurrency) {
        this.waiters.shift().grant();
      } else {
        this.active--;
        while (this.waiters.length > 0 && this.active < this.maxConcurrency) {
          this.active++;
          this.waiters.shift().grant();
        }
      }
    };
  }

  /** Called after the limits change: admit waiters that now fit. */
  drain() {
    while (this.waiters.length > 0 && this.active < this.maxConcurrency) {
      this.active++;
      this.waiters.shift().grant();
    }
  }
}

module.exports = { Semaphore, SemaphoreFullError };
