import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSink, sinkConfigSchema, sinkFactories } from './registry.js';

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
    [{ type: 'oracle', url: 'oracle://db' }, /type/],
    [{ type: 'mysql', url: 'mysql://u:pw@db:3306' }, /expected a mysql:\/\/user@host:3306\/database URL/],
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

describe('describeSink: each connector names its own sink', () => {
  const sink = (config: Record<string, unknown>) => describeSink(sinkConfigSchema.parse(config));

  it('names the place written as the lock name, never a credential, the same for two spellings of one place', () => {
    const postgres = sink({ type: 'postgres', url: 'postgres://app:s3cret-pw@db.example:5432/warehouse?sslmode=require', schema: 'callsync' });
    expect(postgres.lockName).toBe('postgres:db.example:5432/warehouse#callsync');
    expect(JSON.stringify(postgres)).not.toContain('s3cret-pw');
    const mysql = sink({ type: 'mysql', url: 'mysql://app:s3cret-pw@db.example:3306/warehouse' });
    expect([mysql.lockName, mysql.shown]).toEqual(['mysql:db.example:3306/warehouse', 'mysql://db.example:3306/warehouse']);
    expect(JSON.stringify(mysql)).not.toContain('s3cret-pw');
    expect(sink({ type: 'sqlite', path: './data/x.db' }).lockName).toBe(`sqlite:${resolve('data/x.db')}`);
    expect(sink({ type: 'sqlite', path: 'data/../data/x.db' }).lockName).toBe(sink({ type: 'sqlite', path: './data/x.db' }).lockName);
    expect(sink({ type: 'sqlite', path: '/a.db' }).lockName).not.toBe(sink({ type: 'sqlite', path: '/b.db' }).lockName);
  });

  it('names the config key and the value an operator sees, without credentials or query', () => {
    expect(sink({ type: 'postgres', url: 'postgres://app:pw@db.example/warehouse?sslmode=require' })).toMatchObject({
      key: 'sink.url',
      service: 'PostgreSQL',
      shown: 'postgres://db.example/warehouse',
    });
    expect(sink({ type: 'sqlite', path: '/data/callsync.db' })).toMatchObject({ key: 'sink.path', service: 'SQLite', shown: '/data/callsync.db' });
  });
});
