import { describe, expect, it } from 'vitest';
import { hubspotConfigSchema } from './config.js';

const minimal = { type: 'hubspot', token: 'pat-na1-token' };

describe('hubspotConfigSchema retry', () => {
  it('keeps HubSpot’s documented defaults, key by key', () => {
    expect(hubspotConfigSchema.parse(minimal).retry).toEqual({ maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000 });
    expect(hubspotConfigSchema.parse({ ...minimal, retry: { maxAttempts: 3 } }).retry).toEqual({ maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 });
  });

  it.each([
    ['maxDelayMs below baseDelayMs', { baseDelayMs: 1_000, maxDelayMs: 10 }, 'retry.maxDelayMs', 'maxDelayMs (10) must be at least baseDelayMs (1000)'],
    ['more than 100 attempts', { maxAttempts: 101 }, 'retry.maxAttempts', 'Too big: expected number to be <=100'],
  ])('refuses %s, naming the field', (_label, retry, path, message) => {
    const issues = hubspotConfigSchema.safeParse({ ...minimal, retry }).error?.issues ?? [];
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([[path, message]]);
  });
});
