export { createMetrics } from './metrics.js';
export type { CallsyncMetrics } from './metrics.js';
