import angular from './index.js';

export const { cacheCommonEngine, ssgCacheOf, writeResponse, criticalCss } = angular;
export default angular;
