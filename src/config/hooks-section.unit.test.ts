import { describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError } from './errors.js';
import { resolveConfig } from './resolve.js';
import { minimalConfig, testSinkSchema } from '../../test/support/config-fixtures.js';

function resolve(document: unknown) {
  return resolveConfig(document, { sinkSchema: testSinkSchema, env: {}, readFile: () => '', file: 'config/test.yaml' });
}

function problems(document: unknown): string {
  try {
    resolve(document);
  } catch (error) {
    if (error instanceof ConfigError) return formatConfigError(error);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config: hooks', () => {
  it('is absent unless given, and defaults every setting of the signature when given', () => {
    expect(resolve(minimalConfig()).config.hooks).toBeUndefined();
    const hooks = resolve({ ...minimalConfig(), hooks: { secret: 'global-secret', signature: { header: 'X-Hub-Signature' } } }).config.hooks;
    expect(hooks).toMatchObject({
      path: '/hooks',
      auth: 'hmac',
      debounce: 250,
      minInterval: 1_000,
      maxBodyBytes: 1_048_576,
      // Header names are matched as node:http gives them: lower case.
      signature: { header: 'x-hub-signature', algorithm: 'sha256', encoding: 'hex', timestampHeader: 'x-webhook-timestamp', tolerance: 300_000 },
    });
  });

  it('needs a secret for every business and streams that exist', () => {
    const text = problems({ ...minimalConfig(), hooks: { streamMap: { 'call.created': 'callz' } } });
    expect(text).toContain('businesses[0].webhookSecret: required while hooks.secret is not set');
    expect(text).toContain('hooks.streamMap.call.created: unknown stream "callz"');
    const document = minimalConfig() as { businesses: Record<string, unknown>[] };
    document.businesses[0] = { ...document.businesses[0], webhookSecret: 'own-secret' };
    expect(resolve({ ...document, hooks: {} }).config.businesses[0]?.webhookSecret).toBe('own-secret');
  });

  it('redacts both secrets', () => {
    const document = minimalConfig() as { businesses: Record<string, unknown>[] };
    document.businesses[0] = { ...document.businesses[0], webhookSecret: 'own-secret-1' };
    const { secrets } = resolve({ ...document, hooks: { secret: 'global-secret-2' } });
    expect(secrets).toEqual(expect.arrayContaining(['own-secret-1', 'global-secret-2']));
  });
});
