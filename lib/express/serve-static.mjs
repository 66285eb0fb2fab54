import m from './serve-static.js';
export const { serveStatic, FileCache } = m;
export default m;
