import contentType from './content-type.js';

export const { parse, format, configure, cacheStats, clearCache } = contentType;
export default contentType;
