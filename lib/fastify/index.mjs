import mod from './index.js';

export const { fastifyStatic, fastifyEtag, fastifyCompress, fastifyCriticalCss, criticalCss } = mod;
export default mod;
