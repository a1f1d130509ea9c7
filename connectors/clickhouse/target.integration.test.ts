import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sink, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { clickhouseUrl, uniqueName } from '../../test/integration/services.js';
import { clickhouseSinkFactory } from './index.js';

const server = new URL(clickhouseUrl).origin;
const database = uniqueName('ch_target');
const client = createClient({ url: server });
const table: StreamTable = { stream: 'sms', table: 'sms', columns: [{ name: 'body', type: 'text' }] };
// Ids are upstream's text: each must reach ClickHouse as one literal and nothing else.
const ids = ["it's", 'back\\slash', "\\'", 'nul\u0000and\ttab', "x' OR 1=1 --", 'emoji 📞', 'plain'];
const record = (id: string, body = `body of ${id}`): SyncRecord => ({ businessId: "o'brien", id, source: 'v1', fields: { body }, raw: { id, body } });
let sink: Sink;

beforeAll(async () => {
  sink = await clickhouseSinkFactory.create({ type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 }, { logger: pino({ level: 'silent' }) });
  await sink.prepare([table]);
});

afterAll(async () => {
  await sink.close();
  await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
});

describe('clickhouse store: ids and business names with quotes, backslashes and control characters', () => {
  it('stores, finds again, deletes and revives them as themselves', async () => {
    const batch = { businessId: "o'brien", table, records: ids.map((id) => record(id)), deadLetters: [] };
    expect(await sink.write(batch, { offset: 1 })).toEqual({ written: ids.length, unchanged: 0, deadLettered: 0 });
    expect(await sink.write(batch, { offset: 1 })).toEqual({ written: 0, unchanged: ids.length, deadLettered: 0 });
    expect(new Set(await sink.records.listIds("o'brien", table))).toEqual(new Set(ids));
    expect(await sink.records.count("o'brien", table)).toBe(ids.length);
    expect(await sink.records.markDeleted("o'brien", table, ids.slice(0, 4))).toBe(4);
    expect(new Set(await sink.records.listIds("o'brien", table))).toEqual(new Set(ids.slice(4)));
    const revived = await sink.write({ ...batch, records: [record(ids[0] ?? ''), record(ids[1] ?? '', 'changed')] }, { offset: 2 });
    expect(revived).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    expect(await sink.records.count("o'brien", table)).toBe(ids.length - 2);
  });

  it('returns by argMax of a tuple exactly what FINAL returns (the docs give both)', async () => {
    const final = await client.query({ query: `SELECT id, body, raw FROM ${database}.sms FINAL WHERE deleted_at IS NULL ORDER BY id`, format: 'JSONEachRow' });
    const byArgMax = await client.query({
      query:
        `SELECT id, tupleElement(t, 1) AS body, tupleElement(t, 2) AS raw FROM (SELECT business_id, id, argMax(tuple(body, raw, deleted_at), version) AS t ` +
        `FROM ${database}.sms GROUP BY business_id, id) WHERE tupleElement(t, 3) IS NULL ORDER BY id`,
      format: 'JSONEachRow',
    });
    const rows = await final.json<{ id: string; body: string; raw: string }>();
    expect(rows).toHaveLength(ids.length - 2);
    expect(rows.find((row) => row.id === ids[1])?.body).toBe('changed');
    expect(await byArgMax.json()).toEqual(rows);
  });

  it('adds a column a stream declares later; rows stored before keep null there until written again', async () => {
    const grown: StreamTable = { ...table, columns: [...table.columns, { name: 'lead_source', type: 'text', from: ['lead_source'] }] };
    await sink.prepare([grown]);
    const later: SyncRecord = { ...record('later'), fields: { body: 'b', lead_source: 'ads' } };
    expect((await sink.write({ businessId: "o'brien", table: grown, records: [later], deadLetters: [] }, { offset: 3 })).written).toBe(1);
    const result = await client.query({
      query: `SELECT id, lead_source FROM ${database}.sms FINAL WHERE id IN ('plain', 'later') ORDER BY id`,
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      { id: 'later', lead_source: 'ads' },
      { id: 'plain', lead_source: null },
    ]);
  });

  it('writes, replays and deletes a page of ids of 1,024 characters (IN lists split under the query size limit)', async () => {
    const long = Array.from({ length: 300 }, (_, index) => `${index}'`.padEnd(1024, 'l'));
    const batch = { businessId: 'long', table, records: long.map((id) => record(id)), deadLetters: [] };
    expect(await sink.write({ ...batch, records: batch.records.map((r) => ({ ...r, businessId: 'long' })) }, { offset: 1 })).toMatchObject({ written: 300 });
    expect(await sink.write({ ...batch, records: batch.records.map((r) => ({ ...r, businessId: 'long' })) }, { offset: 1 })).toMatchObject({ unchanged: 300 });
    expect(await sink.records.markDeleted('long', table, long)).toBe(300);
    expect(await sink.records.count('long', table)).toBe(0);
    expect(await sink.records.markDeleted('long', table, long)).toBe(0);
  });
});

describe('clickhouse store: a stream another sink wrote since this one last did (the lease moved away and back)', () => {
  it('reads the checkpoint and the ids again once the run starts with load: nothing written twice, the count carried on', async () => {
    const other = await clickhouseSinkFactory.create(
      { type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 },
      { logger: pino({ level: 'silent' }) },
    );
    const page = (pageIds: readonly string[]) => ({
      businessId: 'handover',
      table,
      records: pageIds.map((id) => ({ ...record(id), businessId: 'handover' })),
      deadLetters: [],
    });
    try {
      // The first write into a table without the business: its ids are then known to this sink as the only ones stored.
      expect(await sink.write(page(['h1']), { offset: 1 })).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
      expect((await other.checkpoints.load('handover', 'sms'))?.recordsSynced).toBe(1);
      expect(await other.write(page(['h2']), { offset: 2 })).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
      expect(await sink.checkpoints.load('handover', 'sms')).toMatchObject({ position: { offset: 2 }, recordsSynced: 2 });
      expect(await sink.write(page(['h1', 'h2']), { offset: 3 })).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
      expect(await other.checkpoints.load('handover', 'sms')).toMatchObject({ position: { offset: 3 }, recordsSynced: 2 });
    } finally {
      await other.close();
    }
  });
});
