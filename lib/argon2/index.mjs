import m from './index.js';

export const {
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
} = m;
export default m;
