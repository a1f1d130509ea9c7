import { describe, expect, it } from 'vitest';
import { salesforceConfigSchema } from './config.js';

const minimal = { type: 'salesforce', auth: { flow: 'clientCredentials', consumerKey: 'key', consumerSecret: 'secret' } };

describe('salesforceConfigSchema retry', () => {
  it('keeps Salesforce’s documented defaults, key by key', () => {
    expect(salesforceConfigSchema.parse(minimal).retry).toEqual({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 });
    expect(salesforceConfigSchema.parse({ ...minimal, retry: { maxDelayMs: 900 } }).retry).toEqual({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 900 });
  });

  it.each([
    ['maxDelayMs below baseDelayMs', { maxDelayMs: 100 }, 'retry.maxDelayMs', 'maxDelayMs (100) must be at least baseDelayMs (500)'],
    ['more than 20 attempts', { maxAttempts: 21 }, 'retry.maxAttempts', 'Too big: expected number to be <=20'],
  ])('refuses %s, naming the field', (_label, retry, path, message) => {
    const issues = salesforceConfigSchema.safeParse({ ...minimal, retry }).error?.issues ?? [];
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([[path, message]]);
  });
});
