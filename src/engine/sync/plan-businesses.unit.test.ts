import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/resolve.js';
import { minimalConfig, testSinkSchema } from '../../../test/support/config-fixtures.js';
import { planBusinesses } from './plan-businesses.js';

const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

describe('planBusinesses stream order', () => {
  it('puts the numbers stream first (a CRM maps calls by it), the others in the configured order', () => {
    const document = {
      ...minimalConfig(),
      businesses: [{ name: 'acme', apiKey: 'key-acme', v2Token: 'tok-acme', streams: ['voicemails', 'calls', 'numbers'] }],
    };
    const { config } = resolveConfig(document, { sinkSchema: testSinkSchema, env: {}, readFile: noFiles, file: 'config/test.yaml' });
    expect(planBusinesses(config)[0]?.streams.map((stream) => stream.name)).toEqual(['numbers', 'voicemails', 'calls']);
  });
});
