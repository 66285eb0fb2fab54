import ssrNative from './index.js';

export const { etag, crc32, contentType, serveStatic, FileCache } = ssrNative;
export default ssrNative;
