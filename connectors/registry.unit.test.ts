import { describe, expect, it } from 'vitest';
import { sinkConfigSchema, sinkFactories } from './registry.js';

describe('sinkConfigSchema', () => {
  it('chooses the connector by type and applies defaults', () => {
    expect(sinkConfigSchema.parse({ type: 'sqlite', path: './data/callsync.db' })).toEqual({ type: 'sqlite', path: './data/callsync.db' });
    expect(sinkConfigSchema.parse({ type: 'postgres', url: 'postgres://db/warehouse' })).toEqual({
      type: 'postgres',
      url: 'postgres://db/warehouse',
      schema: 'callsync',
    });
  });

  it.each([
    [{ type: 'sqlite', path: 'x.db', pool: 3 }, /pool/],
    [{ type: 'postgres', url: 'postgres://db/x', schema: 'Drop Table' }, /schema/],
    [{ type: 'postgres', url: 'postgres://db/x', schema: `s${'x'.repeat(63)}` }, /schema/],
    [{ type: 'mysql', url: 'mysql://db' }, /type/],
    [{ type: 'sqlite' }, /path/],
    [{ type: 'postgres', url: 'postgress://u:pw@db/x' }, /expected a postgres:\/\/ or postgresql:\/\/ URL/],
  ])('rejects %j naming the problem', (config, problem) => {
    const result = sinkConfigSchema.safeParse(config);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toMatch(problem);
  });

  it('keys every factory by its own type', () => {
    for (const [type, factory] of Object.entries(sinkFactories)) expect(factory.type).toBe(type);
  });
});
