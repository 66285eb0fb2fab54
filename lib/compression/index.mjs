import m from './index.js';
export const { filter, compression, ContentCache, sharedCache, poolStats } = m;
export default m;
