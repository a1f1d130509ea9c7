import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sink, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import { clickhouseUrl, uniqueName } from '../../test/integration/services.js';
import { clickhouseSinkFactory } from './index.js';

const server = new URL(clickhouseUrl).origin;
const database = uniqueName('ch_views');
const client = createClient({ url: server });
const calls = builtinStreams.get('calls')?.table as StreamTable;
let sink: Sink;

interface Call {
  readonly id: string;
  readonly tracking: string | null;
  readonly createdAt: string;
  readonly status: string | null;
  readonly duration: number | null;
}

const record = (call: Call): SyncRecord => ({
  businessId: 'acme',
  id: call.id,
  source: 'v1',
  fields: { tracking_number_id: call.tracking, created_at: call.createdAt, status: call.status, duration_seconds: call.duration },
  raw: { id: call.id },
});

async function rows(query: string): Promise<unknown[]> {
  const result = await client.query({ query, format: 'JSONEachRow' });
  return result.json();
}

beforeAll(async () => {
  sink = await clickhouseSinkFactory.create({ type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 }, { logger: pino({ level: 'silent' }) });
  await sink.prepare([calls]);
});

afterAll(async () => {
  await sink.close();
  await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
});

describe('clickhouse report views: the SQL sinks\u2019 calls_daily and calls_by_tracking_number over the current rows', () => {
  it('count each call once at its newest version, leave deleted ones out, and a null status neither answered nor missed', async () => {
    const first: Call[] = [
      // 23:30 UTC: its UTC day, whatever the server's time zone.
      { id: 'c1', tracking: 't1', createdAt: '2026-01-01T23:30:00Z', status: 'completed', duration: 10 },
      { id: 'c2', tracking: 't1', createdAt: '2026-01-02T00:30:00Z', status: 'no-answer', duration: null },
      { id: 'c3', tracking: null, createdAt: '2026-01-02T08:00:00Z', status: null, duration: 5 },
      { id: 'c4', tracking: 't1', createdAt: '2026-01-02T09:00:00Z', status: 'completed', duration: 7 },
    ];
    await sink.write({ businessId: 'acme', table: calls, records: first.map(record), deadLetters: [] }, { page: 1 });
    // A change is a second version of c1; c4 is deleted upstream.
    await sink.write({ businessId: 'acme', table: calls, records: [record({ ...first[0]!, duration: 25 })], deadLetters: [] }, { page: 2 });
    expect(await sink.records.markDeleted('acme', calls, ['c4'])).toBe(1);

    expect(await rows(`SELECT * FROM ${database}.calls_daily ORDER BY day, tracking_number_id`)).toEqual([
      { business_id: 'acme', tracking_number_id: 't1', day: '2026-01-01', calls: '1', answered: '1', missed: '0', talk_seconds: '25' },
      { business_id: 'acme', tracking_number_id: 't1', day: '2026-01-02', calls: '1', answered: '0', missed: '1', talk_seconds: '0' },
      { business_id: 'acme', tracking_number_id: null, day: '2026-01-02', calls: '1', answered: '0', missed: '0', talk_seconds: '5' },
    ]);
    expect(await rows(`SELECT * FROM ${database}.calls_by_tracking_number ORDER BY tracking_number_id`)).toEqual([
      {
        business_id: 'acme',
        tracking_number_id: 't1',
        calls: '2',
        answered: '1',
        missed: '1',
        talk_seconds: '25',
        first_call_at: '2026-01-01 23:30:00',
        last_call_at: '2026-01-02 00:30:00',
      },
      {
        business_id: 'acme',
        tracking_number_id: null,
        calls: '1',
        answered: '0',
        missed: '0',
        talk_seconds: '5',
        first_call_at: '2026-01-02 08:00:00',
        last_call_at: '2026-01-02 08:00:00',
      },
    ]);
  });

  it('are kept when the sink opens again (prepare creates only what is missing)', async () => {
    const again = await clickhouseSinkFactory.create(
      { type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 },
      { logger: pino({ level: 'silent' }) },
    );
    try {
      await again.prepare([calls]);
    } finally {
      await again.close();
    }
    const views = await rows(`SELECT name FROM system.tables WHERE database = '${database}' AND engine = 'View' ORDER BY name`);
    expect(views).toEqual([{ name: 'calls_by_tracking_number' }, { name: 'calls_daily' }]);
  });
});
