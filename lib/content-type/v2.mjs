import contentType from './v2.js';

export const { parse, format, isTypeValid, isTokenValid, configure, cacheStats, clearCache } = contentType;
export default contentType;
