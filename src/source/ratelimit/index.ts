export type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult } from './types.js';
export { bucketBudget } from './bucket-budget.js';
export { createMemoryRateLimiter } from './memory-rate-limiter.js';
export { clearRateLimitBlock, createRedisRateLimiter } from './redis-rate-limiter.js';
