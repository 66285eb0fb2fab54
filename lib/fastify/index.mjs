import mod from './index.js';

export const { fastifyStatic, fastifyEtag } = mod;
export default mod;
