import angular from './index.js';

export const { cacheCommonEngine, ssgCacheOf, writeResponse } = angular;
export default angular;
