export { createMetrics, JOB_DURATION_BUCKETS } from './metrics.js';
export type { CallsyncMetrics, MetricsOptions, StreamReading, BusinessLabels, StreamLabels, SyncTrigger } from './metrics.js';
