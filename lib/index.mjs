import ssrNative from './index.js';

export const { etag, crc32 } = ssrNative;
export default ssrNative;
