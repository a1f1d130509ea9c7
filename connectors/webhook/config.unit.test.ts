import { describe, expect, it } from 'vitest';
import { webhookConfigSchema } from './config.js';

const minimal = { type: 'webhook', url: 'https://hooks.example.com/callsync', secret: 'whsec_0123456789abcdef' };

describe('webhookConfigSchema', () => {
  it('fills the documented defaults', () => {
    expect(webhookConfigSchema.parse(minimal)).toEqual({
      ...minimal,
      state: { type: 'sqlite', path: './data/webhook-state.db' },
      timeoutMs: 10_000,
      batchSize: 500,
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000 },
      onEndpointChange: 'refuse',
    });
  });

  it('fills retry defaults key by key', () => {
    expect(webhookConfigSchema.parse({ ...minimal, retry: { maxAttempts: 3 } }).retry).toEqual({
      maxAttempts: 3,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
    });
  });

  it.each([
    ['a non-http URL', { url: 'ftp://hooks.example.com/x' }, 'url'],
    ['a relative URL', { url: '/hooks' }, 'url'],
    ['a short secret', { secret: 'short' }, 'secret'],
    ['an unknown key', { retries: 3 }, ''],
    ['an unknown retry key', { retry: { attempts: 3 } }, 'retry'],
    ['a reserved header', { headers: { 'Idempotency-Key': 'x' } }, 'headers'],
    ['an invalid header name', { headers: { 'bad header': 'x' } }, 'headers'],
    ['a batch above 500', { batchSize: 501 }, 'batchSize'],
    ['an unknown state type', { state: { type: 'redis', url: 'redis://x' } }, 'state'],
    ['more attempts than 100', { retry: { maxAttempts: 101 } }, 'retry.maxAttempts'],
    ['a largest backoff below the first', { retry: { baseDelayMs: 1000, maxDelayMs: 10 } }, 'retry.maxDelayMs'],
  ])('rejects %s and names the path', (_label, change, path) => {
    const result = webhookConfigSchema.safeParse({ ...minimal, ...change });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContainEqual(expect.stringContaining(path));
  });

  it('names both delays when the largest backoff is below the first', () => {
    const result = webhookConfigSchema.safeParse({ ...minimal, retry: { baseDelayMs: 1000, maxDelayMs: 10 } });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['maxDelayMs (10) must be at least baseDelayMs (1000)']);
  });

  it('does not echo the secret in its error', () => {
    const secret = 'too-short-secret';
    const result = webhookConfigSchema.safeParse({ ...minimal, secret: secret.slice(0, 10) });
    expect(JSON.stringify(result.error?.issues)).not.toContain(secret.slice(0, 10));
  });
});
