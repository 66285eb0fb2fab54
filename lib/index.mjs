import ssrNative from './index.js';

export const { etag, crc32, serveStatic, FileCache } = ssrNative;
export default ssrNative;
