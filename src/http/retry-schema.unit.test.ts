import { describe, expect, it } from 'vitest';
import { retrySchema } from './retry-schema.js';

describe('retrySchema', () => {
  it('fills each service its own documented defaults, absent or empty', () => {
    expect(retrySchema({ maxAttempts: 6 }).parse(undefined)).toEqual({ maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000 });
    expect(retrySchema({ maxAttempts: 5 }).parse({})).toEqual({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 });
    expect(retrySchema({ maxAttempts: 8 }).parse({ baseDelayMs: 10 })).toEqual({ maxAttempts: 8, baseDelayMs: 10, maxDelayMs: 30_000 });
  });

  it('refuses maxDelayMs below baseDelayMs, naming the field and both values', () => {
    const result = retrySchema({ maxAttempts: 8 }).safeParse({ baseDelayMs: 500, maxDelayMs: 100 });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['maxDelayMs'], message: 'maxDelayMs (100) must be at least baseDelayMs (500)' })]);
  });

  it('refuses a default base above the given maxDelayMs too', () => {
    expect(retrySchema({ maxAttempts: 8 }).safeParse({ maxDelayMs: 100 }).error?.issues[0]?.message).toBe(
      'maxDelayMs (100) must be at least baseDelayMs (500)',
    );
  });

  it('accepts equal delays', () => {
    expect(retrySchema({ maxAttempts: 8 }).parse({ baseDelayMs: 0, maxDelayMs: 0 })).toEqual({ maxAttempts: 8, baseDelayMs: 0, maxDelayMs: 0 });
  });

  it('keeps a service ceiling on attempts, and none when not given', () => {
    expect(retrySchema({ maxAttempts: 5, maxAttemptsCeiling: 20 }).safeParse({ maxAttempts: 21 }).success).toBe(false);
    expect(retrySchema({ maxAttempts: 5, maxAttemptsCeiling: 20 }).parse({ maxAttempts: 20 }).maxAttempts).toBe(20);
    expect(retrySchema({ maxAttempts: 8 }).parse({ maxAttempts: 1_000 }).maxAttempts).toBe(1_000);
    expect(retrySchema({ maxAttempts: 8 }).safeParse({ maxAttempts: 0 }).success).toBe(false);
  });

  it('refuses unknown keys', () => {
    expect(retrySchema({ maxAttempts: 8 }).safeParse({ attempts: 3 }).error?.issues[0]?.code).toBe('unrecognized_keys');
  });
});
