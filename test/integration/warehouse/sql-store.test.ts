import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { openStateStore } from '../../../connectors/state-stores/index.js';
import type { Sink, StreamTable, SyncRecord } from '../../../src/sink/sink.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';

const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(config: SinkConfig): Promise<Sink> {
  const sink = await createSink(config, { logger });
  cleanups.push(() => sink.close());
  return sink;
}

const wide: StreamTable = {
  stream: 'wide',
  table: 'wide_events',
  columns: [...Array.from({ length: 80 }, (_, i) => ({ name: `c${i}`, type: 'text' as const })), { name: 'n', type: 'integer' }],
};

function wideRecord(id: number, bad = false): SyncRecord {
  const fields: Record<string, string | number> = { n: id };
  for (let i = 0; i < 80; i++) fields[`c${i}`] = `v${id}`;
  if (bad) fields.c3 = 'nul \u0000 here';
  if (bad) fields.n = 'not a number';
  return { businessId: 'acme', id: `w${id}`, source: 'v1', fields, raw: { id } };
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('SQL sink (%s)', (dialect) => {
  it('keeps rows, checkpoints and migrations across restarts', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const first = await open(config);
    const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [{ name: 'direction', type: 'text' }] };
    const record: SyncRecord = { businessId: 'acme', id: 'c1', source: 'v1', fields: { direction: 'inbound' }, raw: { id: 'c1' } };
    await first.write({ businessId: 'acme', table: calls, records: [record], deadLetters: [] }, { cursor: 'x' });
    await first.close();
    const second = await open(config);
    await second.prepare([calls]);
    expect(await second.checkpoints.load('acme', 'calls')).toEqual({ businessId: 'acme', stream: 'calls', position: { cursor: 'x' }, recordsSynced: 1 });
    const replay = await second.write({ businessId: 'acme', table: calls, records: [record], deadLetters: [] }, { cursor: 'x' });
    expect(replay.written).toBe(0);
  });

  it("reads a column's distinct stored values of one business, without deleted rows", async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    if (config.type !== 'sqlite' && config.type !== 'postgres' && config.type !== 'mysql') throw new Error('a SQL config');
    const store = await openStateStore(config, logger);
    cleanups.push(() => store.close());
    const numbers: StreamTable = { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] };
    await store.prepare([numbers]);
    const row = (businessId: string, id: string, number: string | null): SyncRecord => ({ businessId, id, source: 'v1', fields: { number }, raw: {} });
    await store.commit(
      {
        businessId: 'acme',
        table: numbers,
        records: [row('acme', 'n1', '+14155550100'), row('acme', 'n2', '+14155550100'), row('acme', 'n3', '+18005550100'), row('acme', 'n4', null)],
        deadLetters: [],
      },
      {},
    );
    await store.commit({ businessId: 'other', table: numbers, records: [row('other', 'n1', '+12125550100')], deadLetters: [] }, {});
    await store.records.markDeleted('acme', numbers, ['n3']);
    expect(await store.records.columnValues('acme', numbers, 'number')).toEqual(['+14155550100']);
    await expect(store.records.columnValues('acme', numbers, 'raw')).rejects.toThrow(/declares no column raw/);
  });

  it('adds the columns a custom stream grew', async () => {
    const sink = await open(await freshSqlConfig(dialect, cleanups));
    const sms: StreamTable = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' }] };
    await sink.prepare([sms]);
    const grown: StreamTable = { ...sms, columns: [...sms.columns, { name: 'body', type: 'text' }] };
    const record: SyncRecord = { businessId: 'acme', id: 's1', source: 'v1', fields: { created_at: '2024-01-01T00:00:00Z', body: 'hi' }, raw: {} };
    const result = await sink.write({ businessId: 'acme', table: grown, records: [record], deadLetters: [] }, {});
    expect(result.written).toBe(1);
  });

  it('chunks a wide batch under the bind limit and isolates a refused row in a later chunk', async () => {
    const sink = await open(await freshSqlConfig(dialect, cleanups));
    // 86 columns a row: SQLite fits 380 rows in one statement, so 500 rows take two chunks.
    const records = Array.from({ length: 500 }, (_, i) => wideRecord(i, i === 450));
    const result = await sink.write({ businessId: 'acme', table: wide, records, deadLetters: [] }, { page: 1 });
    expect(result).toEqual({ written: 499, unchanged: 0, deadLettered: 1 });
    const letters = await sink.deadLetters.list({ businessId: 'acme', stream: 'wide' });
    expect(letters.map((letter) => letter.raw)).toEqual([{ id: 450 }]);
    expect((await sink.checkpoints.load('acme', 'wide'))?.recordsSynced).toBe(499);
  });

  it('adds deleted_at to stream tables created before it: built-in ones by migration 003, custom ones on prepare', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sms: StreamTable = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' }] };
    const first = await open(config);
    await first.prepare([sms]);
    await first.close();
    // What a database of the previous release looks like.
    await querySql(config, (t) => [
      // The report views of migration 005 read deleted_at; a database from before 003 had neither.
      `drop view ${t('calls_daily')}`,
      `drop view ${t('calls_by_tracking_number')}`,
      // MySQL names an index's table.
      `drop index ${t('calls_deleted_at_idx')}${dialect === 'mysql' ? ` on ${t('calls')}` : ''}`,
      `drop index ${t('sms_deleted_at_idx')}${dialect === 'mysql' ? ` on ${t('sms')}` : ''}`,
      `alter table ${t('calls')} drop column deleted_at`,
      `alter table ${t('sms')} drop column deleted_at`,
      `delete from ${t('kysely_migration')} where name in ('003_deleted_at', '004_call_details', '005_report_views', '006_deleted_at_index')`,
    ]);
    const second = await open(config);
    await second.prepare([sms]);
    // calls was not prepared here: migration 003 added its column (a missing column would throw).
    await querySql(config, (t) => [`select deleted_at from ${t('calls')}`, `select deleted_at from ${t('sms')}`]);
    const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [] };
    const record = (id: string): SyncRecord => ({ businessId: 'acme', id, source: 'v1', fields: {}, raw: { id } });
    for (const table of [calls, sms]) {
      await second.write({ businessId: 'acme', table, records: [record('a'), record('b')], deadLetters: [] }, {});
      expect(await second.records.markDeleted('acme', table, ['a'])).toBe(1);
      expect(await second.records.listIds('acme', table)).toEqual(['b']);
    }
  });

  it('refuses an unsafe table name before touching the database', async () => {
    const sink = await open(await freshSqlConfig(dialect, cleanups));
    await expect(sink.prepare([{ stream: 'x', table: 'x; drop table calls', columns: [] }])).rejects.toThrow(/not a safe SQL identifier/);
  });
});

describe.each(['sqlite', 'postgres', 'mysql'] as const)('SQL sink write path (%s)', (dialect) => {
  const events: StreamTable = {
    stream: 'events',
    table: 'events',
    columns: [
      { name: 'n', type: 'integer' },
      { name: 'label', type: 'text' },
    ],
  };
  const event = (id: number, n: unknown, label = 'x'): SyncRecord => ({
    businessId: 'acme',
    id: `e${String(id)}`,
    source: 'v1',
    fields: { n: n as number, label },
    raw: { id },
  });
  const checkpoint = (page: number) => ({ page });

  it('counts only inserted or changed rows, batch after batch on one connection', async () => {
    const sink = await open(await freshSqlConfig(dialect, cleanups));
    const first = Array.from({ length: 10 }, (_, i) => event(i, i));
    expect(await sink.write({ businessId: 'acme', table: events, records: first, deadLetters: [] }, checkpoint(1))).toEqual({
      written: 10,
      unchanged: 0,
      deadLettered: 0,
    });
    // Same statement again (prepared once per connection): 2 changed, 1 new, 8 unchanged.
    const second = [...first.slice(0, 8), event(8, 8, 'changed'), event(9, 90), event(10, 10)];
    expect(await sink.write({ businessId: 'acme', table: events, records: second, deadLetters: [] }, checkpoint(2))).toEqual({
      written: 3,
      unchanged: 8,
      deadLettered: 0,
    });
    expect((await sink.checkpoints.load('acme', 'events'))?.recordsSynced).toBe(13);
  });

  it('redoes a batch with a refused row row by row, keeping the rest, the dead letter and the checkpoint', async () => {
    const sink = await open(await freshSqlConfig(dialect, cleanups));
    const records = [event(1, 1), event(2, 'not a number'), event(3, 3)];
    const result = await sink.write({ businessId: 'acme', table: events, records, deadLetters: [] }, checkpoint(1));
    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 1 });
    expect((await sink.deadLetters.list({ stream: 'events' })).map((letter) => letter.raw)).toEqual([{ id: 2 }]);
    expect(await sink.checkpoints.load('acme', 'events')).toEqual({ businessId: 'acme', stream: 'events', position: { page: 1 }, recordsSynced: 2 });
    // The connection is usable afterwards and the bulk path still works.
    const again = await sink.write({ businessId: 'acme', table: events, records: [event(1, 1), event(4, 4)], deadLetters: [] }, checkpoint(2));
    expect(again).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
  });

  it('commits nothing for a page read again at the stored place as stored, and writes it when a row differs or was deleted', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sink = await open(config);
    const page = [event(1, 1), event(2, 2)];
    const write = (records: SyncRecord[], position = checkpoint(1)) => sink.write({ businessId: 'acme', table: events, records, deadLetters: [] }, position);
    const state = async () => (await querySql(config, (t) => [`select records_synced, updated_at from ${t('sync_state')}`]))[0];
    await write(page);
    const written = await state();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // An idle poll's head page: no transaction, so the checkpoint keeps its time.
    expect(await write(page)).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
    expect(await state()).toEqual(written);
    const transcribed = [event(1, 1, 'late transcription'), event(2, 2)];
    expect(await write(transcribed)).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
    expect(await sink.records.markDeleted('acme', events, ['e2'])).toBe(1);
    expect(await write(transcribed)).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
    expect(await sink.records.count('acme', events)).toBe(2);
    // A row missing, or the same rows at another place, is written as before.
    expect(await write([...transcribed, event(3, 3)])).toEqual({ written: 1, unchanged: 2, deadLettered: 0 });
    await write(transcribed, checkpoint(2));
    expect((await sink.checkpoints.load('acme', 'events'))?.position).toEqual(checkpoint(2));
  });

  it('checks a page longer than one statement of the idle-page check: held as stored, written when any row differs', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sink = await open(config);
    const page = Array.from({ length: 70 }, (_, i) => event(i + 1, i + 1));
    const write = (records: SyncRecord[]) => sink.write({ businessId: 'acme', table: events, records, deadLetters: [] }, checkpoint(1));
    const state = async () => (await querySql(config, (t) => [`select records_synced, updated_at from ${t('sync_state')}`]))[0];
    expect(await write(page)).toEqual({ written: 70, unchanged: 0, deadLettered: 0 });
    const written = await state();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await write(page)).toEqual({ written: 0, unchanged: 70, deadLettered: 0 });
    // Not committed: the check found all 70 rows, across its statements, as stored.
    expect(await state()).toEqual(written);
    // One row changed inside the first statement's rows, one among the rows left over.
    const changed = page.map((record, i) => (i === 5 || i === 68 ? event(i + 1, i + 1, 'changed') : record));
    expect(await write(changed)).toEqual({ written: 2, unchanged: 68, deadLettered: 0 });
  });

  it('commits only once the target holds the batch, unseen meanwhile, and nothing at all when it does not, with no row-by-row redo', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    if (config.type !== 'sqlite' && config.type !== 'postgres' && config.type !== 'mysql') throw new Error('a SQL config');
    const store = await openStateStore(config, logger);
    cleanups.push(() => store.close());
    await store.prepare([events]);
    // Read on a connection of its own: this store's reads would wait for its open transaction.
    const stored = async () => (await querySql(config, (t) => [`select id from ${t('events')} order by id`])).map((row) => row.id);
    const positions = async () => (await querySql(config, (t) => [`select position from ${t('sync_state')}`])).length;

    let fileStored = (): void => undefined;
    const durable = new Promise<void>((resolve) => (fileStored = resolve));
    const committing = store.commit(
      { businessId: 'acme', table: events, records: [event(1, 1), event(2, 2)], deadLetters: [] },
      checkpoint(1),
      undefined,
      durable,
    );
    // Time for the rows to go in; until the target holds them, another connection sees neither rows nor checkpoint.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stored()).toEqual([]);
    expect(await positions()).toBe(0);
    fileStored();
    expect(await committing).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    expect(await stored()).toEqual(['e1', 'e2']);

    // A refused row sends the batch to the row-by-row redo, which waits for the target too: its failure undoes everything.
    const diskFull = Promise.reject(new Error('disk full'));
    diskFull.catch(() => undefined);
    const failed = store.commit(
      { businessId: 'acme', table: events, records: [event(3, 3), event(4, 'not a number')], deadLetters: [] },
      checkpoint(2),
      undefined,
      diskFull,
    );
    await expect(failed).rejects.toThrow('disk full');
    expect(await stored()).toEqual(['e1', 'e2']);
    expect(await store.deadLetters.list({ stream: 'events' })).toEqual([]);
    expect(await store.checkpoints.load('acme', 'events')).toEqual({ businessId: 'acme', stream: 'events', position: { page: 1 }, recordsSynced: 2 });
  });

  it('counts what another connection and this sink changed since the last count, per business', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sink = await open(config);
    const write = (businessId: string, ids: number[]) =>
      sink.write({ businessId, table: events, records: ids.map((id) => ({ ...event(id, id), businessId })), deadLetters: [] }, checkpoint(1));
    const counts = async () => [await sink.records.count('acme', events), await sink.records.count('beta', events)];
    await write('acme', [1, 2, 3]);
    await write('beta', [1, 2]);
    expect(await counts()).toEqual([3, 2]);
    expect(await counts()).toEqual([3, 2]);
    await querySql(config, (t) => [`delete from ${t('events')} where business_id = 'acme' and id = 'e1'`]);
    expect(await counts()).toEqual([2, 2]);
    expect(await sink.records.markDeleted('acme', events, ['e2'])).toBe(1);
    expect(await counts()).toEqual([1, 2]);
    await write('acme', [3]);
    expect(await counts()).toEqual([1, 2]);
    await write('acme', [2]);
    expect(await counts()).toEqual([2, 2]);
    await write('acme', [4]);
    expect(await counts()).toEqual([3, 2]);
    await querySql(config, (t) => [`update ${t('events')} set deleted_at = '2026-11-26T00:00:00Z' where business_id = 'beta' and id = 'e1'`]);
    expect(await counts()).toEqual([3, 1]);
  });
});
