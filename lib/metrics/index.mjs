import metrics from './index.js';

export const { registerMetrics } = metrics;
export default metrics;
