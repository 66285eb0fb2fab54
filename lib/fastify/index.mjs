import mod from './index.js';

export const { fastifyStatic, fastifyEtag, fastifyCompress } = mod;
export default mod;
