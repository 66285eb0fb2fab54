// Compiled (not run) by test/js/package/package.test.js: ssr-native/argon2's declarations, used the
// way argon2 package users write their code.
import argon2 = require('ssr-native/argon2');

async function usage(): Promise<void> {
  const digest: string = await argon2.hash('password');
  const raw: Buffer = await argon2.hash('password', { raw: true, type: argon2.argon2i });
  const ok: boolean = await argon2.verify(digest, Buffer.from('password'), { secret: Buffer.from('pepper') });
  const stale: boolean = argon2.needsRehash(digest, { timeCost: 4 });
  const settings = argon2.configure({ maxConcurrency: 2, maxQueue: 8, queueTimeoutMs: 1000, threads: 2, priority: 10 });
  const n: number = settings.maxQueue + argon2.stats().rejected;
  argon2.configure({ rejectDelayMs: 'auto', policy: 'batch', shared: 'auth-servers', sharedSlots: 4 });
  argon2.configure({ rejectDelayMs: 100, shared: false });
  const shared = argon2.stats().shared;
  const held: number = shared ? shared.held + shared.here + shared.slots : 0;
  // @ts-expect-error a policy is one of three names
  argon2.configure({ policy: 'fifo' });
  void held;
  try {
    await argon2.hash('x', { memoryCost: 1 << 16, timeCost: 3, parallelism: 4, salt: Buffer.alloc(16) });
  } catch (err) {
    if (err instanceof argon2.SemaphoreFullError) {
      const seconds: number = err.retryAfter;
      const code: 'ERR_ARGON2_BUSY' = err.code;
      void seconds;
      void code;
    }
  }
  argon2.expressErrorHandler();
  argon2.koaMiddleware();
  // @ts-expect-error the type is one of the three constants
  await argon2.hash('x', { type: 'argon2id' });
  void raw;
  void ok;
  void stale;
  void n;
}

export { usage };
