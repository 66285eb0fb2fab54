import ssrNative from './index.js';

export const { etag, crc32, contentType } = ssrNative;
export default ssrNative;
