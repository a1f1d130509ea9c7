import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import { minimalConfig, testSinkSchema } from '../config/test-fixtures.js';
import { configWarnings } from './config-warnings.js';

function warningsOf(extra: Record<string, unknown>): string[] {
  const { config } = resolveConfig({ ...minimalConfig(), ...extra }, { sinkSchema: testSinkSchema, env: {}, readFile: () => '', file: 'config/test.yaml' });
  return configWarnings(config);
}

describe('config warnings: webhooks', () => {
  it('says when webhooks are received on loopback only, naming the key that decides it', () => {
    expect(warningsOf({ hooks: { secret: 'hook-secret' } }).join('\n')).toContain('webhooks are received on server.host 127.0.0.1');
    expect(warningsOf({ hooks: { secret: 'hook-secret', port: 9465 } }).join('\n')).toContain('webhooks are received on hooks.host 127.0.0.1');
    expect(warningsOf({ hooks: { secret: 'hook-secret', port: 9465, host: '0.0.0.0' } })).toEqual([]);
    expect(warningsOf({})).toEqual([]);
  });

  it('says that a signature without a timestamp can be replayed', () => {
    const warnings = warningsOf({ hooks: { secret: 'hook-secret', port: 9465, host: '0.0.0.0', signature: { timestampHeader: false } } });
    expect(warnings).toEqual([expect.stringContaining('hooks.signature.timestampHeader is false')]);
  });
});
