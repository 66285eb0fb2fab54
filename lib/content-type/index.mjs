import contentType from './index.js';

export const { parse, format, configure, cacheStats, clearCache } = contentType;
export default contentType;
