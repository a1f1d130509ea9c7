import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sinkLockKey } from './stream-lease.js';

describe('sink lock names', () => {
  it('keys one lock per sink × business × stream', () => {
    const a = `sqlite:${resolve('/a.db')}`;
    const b = `sqlite:${resolve('/b.db')}`;
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).toMatch(/^callsync:lock:[0-9a-f]{16}:biz-1:calls$/);
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).not.toBe(sinkLockKey('callsync', b, 'biz-1', 'calls'));
    expect(sinkLockKey('callsync', a, 'biz-1', 'calls')).not.toBe(sinkLockKey('callsync', a, 'biz-1', 'numbers'));
  });
});
