import { describe, expect, it } from 'vitest';
import { emptyStatus, type StatusSnapshot } from '../../../engine/state/index.js';
import { withCheckpoints } from './with-checkpoints.js';

const generatedAt = '2026-11-23T07:00:00.000Z';
const checkpoint = (recordsSynced: number) => ({ businessId: 'acme', stream: 'calls', position: {}, recordsSynced });

describe('withCheckpoints', () => {
  it('counts what the sink holds when Redis reported the stream with fewer (a backfill wrote them)', () => {
    const snapshot: StatusSnapshot = {
      generatedAt,
      businesses: [{ name: 'acme', failed: null, activity: [], streams: [{ ...emptyStatus('acme', 'calls', generatedAt), lagSeconds: 3, recordsSynced: 0 }] }],
    };
    const merged = withCheckpoints(snapshot, [{ business: 'acme', stream: 'calls', checkpoint: checkpoint(5_000) }]);
    expect(merged.businesses[0]?.streams[0]?.recordsSynced).toBe(5_000);
  });

  it('keeps a larger worker count, and adds streams Redis never saw from the sink', () => {
    const snapshot: StatusSnapshot = {
      generatedAt,
      businesses: [{ name: 'acme', failed: null, activity: [], streams: [{ ...emptyStatus('acme', 'calls', generatedAt), lagSeconds: 3, recordsSynced: 70 }] }],
    };
    const merged = withCheckpoints(snapshot, [
      { business: 'acme', stream: 'calls', checkpoint: checkpoint(50) },
      { business: 'acme', stream: 'numbers', checkpoint: { ...checkpoint(12), stream: 'numbers' } },
    ]);
    expect(merged.businesses[0]?.streams.map((s) => [s.stream, s.recordsSynced])).toEqual([
      ['calls', 70],
      ['numbers', 12],
    ]);
  });
});
