import mod from './index.js';

export const { serveStatic, etag, compress, criticalCss, RETAINED_304_HEADERS } = mod;
export default mod;
