import m from './index.js';
export const { serveStatic, FileCache } = m;
export default m;
