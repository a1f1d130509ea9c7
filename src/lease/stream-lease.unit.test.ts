import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sinkIdentity, sinkLockKey } from './stream-lease.js';

describe('sink lock names', () => {
  it('names the place written, never a credential, the same for two spellings of one place', () => {
    const postgres = sinkIdentity({ type: 'postgres', url: 'postgres://app:s3cret-pw@db.example:5432/warehouse?sslmode=require', schema: 'callsync' });
    expect(postgres).toBe('postgres:db.example:5432/warehouse#callsync');
    expect(sinkIdentity({ type: 'sqlite', path: './data/x.db' })).toBe(`sqlite:${resolve('data/x.db')}`);
    expect(sinkIdentity({ type: 'sqlite', path: 'data/../data/x.db' })).toBe(sinkIdentity({ type: 'sqlite', path: './data/x.db' }));
  });

  it('keys one lock per sink × business × stream', () => {
    const a = sinkIdentity({ type: 'sqlite', path: '/a.db' });
    const b = sinkIdentity({ type: 'sqlite', path: '/b.db' });
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).toMatch(/^callsync:lock:[0-9a-f]{16}:biz-1:calls$/);
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).not.toBe(sinkLockKey('callsync', b, 'biz-1', 'calls'));
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).not.toBe(sinkLockKey('callsync', a, 'biz-1', 'numbers'));
  });
});
