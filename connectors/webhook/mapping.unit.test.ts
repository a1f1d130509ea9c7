import { describe, expect, it } from 'vitest';
import type { Batch, SyncRecord } from '../../src/sink/sink.js';
import { idempotencyKey } from './idempotency-key.js';
import { buildDelivery } from './mapping.js';

const table = { stream: 'calls', table: 'calls', columns: [{ name: 'direction', type: 'text' as const }] };
const record = (id: string, raw: SyncRecord['raw'], fields: SyncRecord['fields'] = {}): SyncRecord => ({
  businessId: 'acme',
  id,
  source: 'v1',
  fields,
  raw,
});
const batchOf = (...records: SyncRecord[]): Batch => ({ businessId: 'acme', table, records, deadLetters: [] });

describe('buildDelivery', () => {
  it('flattens normalized fields beside id, source, raw and synced_at', () => {
    const raw = { id: 'c1', direction: 'inbound', extra: { nested: [1, 2] } };
    const { payload, body } = buildDelivery(
      batchOf(record('c1', raw, { direction: 'inbound', duration_seconds: 12, recording_url: null })),
      'batch-1',
      '2025-01-01T00:00:00Z',
    );
    expect(payload).toEqual({
      business_id: 'acme',
      stream: 'calls',
      batch_id: 'batch-1',
      records: [{ id: 'c1', source: 'v1', direction: 'inbound', duration_seconds: 12, recording_url: null, raw, synced_at: '2025-01-01T00:00:00Z' }],
    });
    expect(JSON.parse(body)).toEqual(payload);
  });

  it('never lets a normalized field shadow the record identity', () => {
    const { payload } = buildDelivery(
      batchOf(record('c1', { id: 'c1' }, { id: 'other', source: 'v9', raw: 'x', synced_at: 'then' })),
      'b',
      '2025-01-01T00:00:00Z',
    );
    expect(payload.records[0]).toEqual({ id: 'c1', source: 'v1', raw: { id: 'c1' }, synced_at: '2025-01-01T00:00:00Z' });
  });

  it('keys the delivery by content, not by batch id or sync time', () => {
    const batch = batchOf(record('c1', { a: 1 }));
    expect(buildDelivery(batch, 'one', '2025-01-01T00:00:00Z').idempotencyKey).toBe(buildDelivery(batch, 'two', '2025-02-01T00:00:00Z').idempotencyKey);
  });
});

describe('idempotencyKey', () => {
  const records = [record('c1', { id: 'c1', to: '+15550001', tags: ['a', 'b'] }), record('c2', { id: 'c2' })];
  const key = idempotencyKey('acme', 'calls', records);

  it('is a stable sha256 hex key', () => {
    expect(key).toMatch(/^cs1_[0-9a-f]{64}$/);
    expect(idempotencyKey('acme', 'calls', records)).toBe(key);
  });

  it('ignores record order and the key order inside raw JSON', () => {
    const reordered = [record('c2', { id: 'c2' }), record('c1', { tags: ['a', 'b'], to: '+15550001', id: 'c1' })];
    expect(idempotencyKey('acme', 'calls', reordered)).toBe(key);
  });

  it.each([
    ['another business', () => idempotencyKey('globex', 'calls', records)],
    ['another stream', () => idempotencyKey('acme', 'voicemails', records)],
    ['a changed raw value', () => idempotencyKey('acme', 'calls', [record('c1', { id: 'c1', to: '+15550002', tags: ['a', 'b'] }), records[1]!])],
    ['a changed array order in raw', () => idempotencyKey('acme', 'calls', [record('c1', { id: 'c1', to: '+15550001', tags: ['b', 'a'] }), records[1]!])],
    ['a number turned string in raw', () => idempotencyKey('acme', 'calls', [records[0]!, record('c2', { id: 'c2', n: '1' })])],
    ['a missing record', () => idempotencyKey('acme', 'calls', records.slice(0, 1))],
    ['a renamed record', () => idempotencyKey('acme', 'calls', [records[0]!, record('c3', { id: 'c2' })])],
    ['a record coming back after a deleted event', () => idempotencyKey('acme', 'calls', records, new Set(['c1']))],
  ])('changes with %s', (_label, other) => {
    expect(other()).not.toBe(key);
  });

  it('cannot be forged by moving text between business and stream', () => {
    expect(idempotencyKey('ac', 'mecalls', records)).not.toBe(idempotencyKey('acme', 'calls', records));
  });
});
