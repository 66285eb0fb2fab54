import m from './index.js';
export const { filter, compression, ContentCache, sharedCache } = m;
export default m;
