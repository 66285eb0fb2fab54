import criticalCssModule from './index.js';

export const { inlineCriticalCss, criticalCss, CriticalCss, ANGULAR_DEFAULTS } = criticalCssModule;
export default criticalCssModule;
