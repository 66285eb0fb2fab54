import cache from './index.js';

export const { responseCache, CacheEngine } = cache;
export default cache;
