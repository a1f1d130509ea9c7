import { describe, expect, it } from 'vitest';
import { buildDelivery } from '../../connectors/webhook/mapping.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { minimalConfig, testSinkSchema } from '../support/config-fixtures.js';
import type { SyncRecord } from '../../src/sink/sink.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';

const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

describe('config columns: from the config file to the record', () => {
  const document = { ...minimalConfig(), columns: { calls: [{ name: 'lead_source', from: 'tracking.source', type: 'text' }] } };
  const { config } = resolveConfig(document, { sinkSchema: testSinkSchema, env: {}, readFile: noFiles, file: 'config/test.yaml' });
  const [plan] = planBusinesses(config);
  const calls = plan?.streams.find((stream) => stream.name === 'calls');

  it('gives the calls table the column with its path, and leaves other tables alone', () => {
    expect(calls?.table.columns.at(-1)).toEqual({ name: 'lead_source', from: ['tracking', 'source'], type: 'text' });
    expect(plan?.streams.find((stream) => stream.name === 'numbers')?.table.columns.map((column) => column.name)).toEqual(['number']);
  });

  it('reads the column from every record, and the webhook payload carries it', () => {
    const raw = { id: 'c1', created_at: '2024-03-05T14:07:09Z', tracking: { source: 'google' } };
    const normalized = calls?.normalize(raw, plan?.normalizeContext ?? { recordingsBaseUrl: '', v2TimeZone: 'UTC' });
    expect(normalized?.ok && normalized.fields.lead_source).toBe('google');
    if (calls === undefined || normalized?.ok !== true) throw new Error('calls did not normalize');
    const record: SyncRecord = { businessId: 'acme', id: normalized.id, source: 'v1', fields: normalized.fields, raw };
    const { payload } = buildDelivery({ businessId: 'acme', table: calls.table, records: [record], deadLetters: [] }, 'b1', '2025-01-01T00:00:00Z');
    expect(payload.records[0]).toMatchObject({ id: 'c1', lead_source: 'google' });
  });
});
