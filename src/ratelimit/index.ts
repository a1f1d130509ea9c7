export type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult, TokensTaken } from './types.js';
export { createMemoryRateLimiter } from './memory-rate-limiter.js';
export type { MemoryRateLimiterOptions } from './memory-rate-limiter.js';
export { clearRateLimitBlock, createRedisRateLimiter } from './redis-rate-limiter.js';
export type { RedisRateLimiterOptions } from './redis-rate-limiter.js';
export { DEFAULT_GUARD_MS, guardFor } from './fixed-window.js';
