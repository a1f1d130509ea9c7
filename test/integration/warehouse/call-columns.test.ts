import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { sinkMigrator, TABLES_002 } from '../../../connectors/sql/migrations.js';
import { openSqlStoreParts } from './old-database.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';
import { StatementCache } from '../../../connectors/sql/statements.js';
import { inlineConfig } from '../../../src/entry/cli/demo/demo-config.js';
import { normalizeV1Call } from '../../../src/normalize/index.js';
import type { JsonObject, SyncRecord } from '../../../src/sink/sink.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import { backfillOnce, configDocument, requestsByBusiness, total } from '../support/backfill-harness.js';

const BUSINESSES = ['biz-1', 'biz-2'];
const CONTEXT = { recordingsBaseUrl: 'https://media.calltrack.test', v2TimeZone: 'UTC' };

/** The `calls` table as migration 002 created it and the code before migration 004 wrote it. */
const CALLS_BEFORE_004 = TABLES_002.find((table) => table.stream === 'calls')!;

type Row = Record<string, unknown>;

/** A stored value in JS form (Postgres hands back bigint as text and timestamptz as Date). */
function plain(value: unknown): unknown {
  if (value instanceof Date) return `${value.toISOString().slice(0, 19)}Z`;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
}

function plainRows(rows: readonly Row[]): Row[] {
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, plain(value)])));
}

/** What the simulator served for every call, by `business/id`. */
function truthByKey(simulator: Simulator): Map<string, Record<string, unknown>> {
  const calls = new Map<string, Record<string, unknown>>();
  for (const business of BUSINESSES)
    for (const call of simulator.truth(business).calls) calls.set(`${business}/${call.id}`, call.raw as Record<string, unknown>);
  return calls;
}

/** Every stored call's columns compared with the served record's fields; differences as text. */
async function differences(config: SinkConfig, simulator: Simulator, columns: Record<string, string>): Promise<string[]> {
  const truth = truthByKey(simulator);
  const rows = plainRows(await querySql(config, (t) => [`select business_id, id, ${Object.keys(columns).join(', ')} from ${t('calls')}`]));
  const found: string[] = [];
  if (rows.length !== truth.size) found.push(`${rows.length} rows stored, ${truth.size} calls served`);
  for (const row of rows) {
    const served = truth.get(`${String(row.business_id)}/${String(row.id)}`);
    for (const [column, field] of Object.entries(columns)) {
      if (row[column] !== served?.[field]) found.push(`${String(row.id)}.${column}: ${JSON.stringify(row[column])} ≠ ${JSON.stringify(served?.[field])}`);
    }
  }
  return found.slice(0, 5);
}

const BUILT_IN = { duration_seconds: 'duration_seconds', status: 'status', updated_at: 'updated_at', tracking_number_id: 'tracking_number_id' };

/** A database created and filled by the code before this change: migrations up to 003, rows with the old column list. */
async function databaseBeforeCallDetails(config: SinkConfig, simulator: Simulator): Promise<void> {
  const { adapter, driver } = openSqlStoreParts(config);
  try {
    const { error } = await sinkMigrator(driver.db, adapter).migrateTo('003_deleted_at');
    if (error !== undefined) throw new Error('migrating to 003 failed', { cause: error });
    const records: SyncRecord[] = BUSINESSES.flatMap((businessId) =>
      simulator.truth(businessId).calls.map((call): SyncRecord => {
        // The served JSON is JSON.stringify of this object of primitives, so it is JSON.
        const raw = call.raw as JsonObject;
        const normalized = normalizeV1Call(raw, CONTEXT);
        if (!normalized.ok) throw new Error(normalized.reason);
        return { businessId, id: normalized.id, source: 'v1', fields: normalized.fields, raw };
      }),
    );
    const statements = new StatementCache(adapter);
    await driver.transaction((executor) => statements.runUpsert(executor, CALLS_BEFORE_004, records, new Date().toISOString()));
  } finally {
    await driver.destroy();
  }
}

function configFor(simulator: Simulator, sink: SinkConfig, columns?: Record<string, unknown>) {
  const document = { ...configDocument(simulator, '', { sink: { ...sink }, streams: ['calls'] }), ...(columns === undefined ? {} : { columns }) };
  return inlineConfig(document, '(test)');
}

const cleanups: (() => Promise<void>)[] = [];
let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 1_300, voicemails: 0, numbers: 2, seed: 15, rateLimit: { limit: 600, windowMs: 1000 } });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await simulator.close();
});

describe.each(['sqlite', 'postgres', 'mysql'] as const)('call columns in %s', (dialect) => {
  it("stores every call's duration, status, updated_at and tracking number as served", async () => {
    const sink = await freshSqlConfig(dialect, cleanups);
    const run = await backfillOnce(configFor(simulator, sink));
    expect(total(run, 'deadLettered')).toBe(0);
    expect(await differences(sink, simulator, BUILT_IN)).toEqual([]);
  });

  it('fills them in a database created before them, from raw, without asking upstream', async () => {
    const sink = await freshSqlConfig(dialect, cleanups);
    await databaseBeforeCallDetails(sink, simulator);
    const before = await querySql(sink, (t) => [`select * from ${t('calls')} limit 1`]);
    expect(Object.keys(before[0] ?? {})).not.toContain('duration_seconds');

    simulator.resetCounters();
    const config = configFor(simulator, sink);
    const opened = await createSink(config.sink, { logger: pino({ level: 'silent' }) });
    try {
      await opened.prepare([...new Set(planBusinesses(config).flatMap((plan) => plan.streams.map((stream) => stream.table)))]);
    } finally {
      await opened.close();
    }
    expect(Object.values(requestsByBusiness(simulator)).reduce((sum, n) => sum + n, 0)).toBe(0);
    expect(await differences(sink, simulator, BUILT_IN)).toEqual([]);

    // A full sync now rewrites nothing: what SQL filled is exactly what the normalizer writes.
    const run = await backfillOnce(config);
    expect(total(run, 'records')).toBe(truthByKey(simulator).size);
    expect(total(run, 'written')).toBe(0);
  });

  it('adds a declared column to an existing database and fills every row with one request per stream', async () => {
    const sink = await freshSqlConfig(dialect, cleanups);
    await backfillOnce(configFor(simulator, sink));
    simulator.resetCounters();
    const columns = {
      calls: [
        { name: 'call_outcome', from: 'status', type: 'text' },
        { name: 'talk', from: 'duration_seconds', type: 'integer' },
        { name: 'changed', from: 'updated_at', type: 'timestamp' },
        { name: 'tracker', from: 'tracking_number_id', type: 'text' },
      ],
    };
    const run = await backfillOnce(configFor(simulator, sink, columns));
    expect(total(run, 'written')).toBe(0);
    for (const requests of Object.values(requestsByBusiness(simulator))) expect(requests).toBeLessThanOrEqual(1);
    expect(
      await differences(sink, simulator, { call_outcome: 'status', talk: 'duration_seconds', changed: 'updated_at', tracker: 'tracking_number_id' }),
    ).toEqual([]);

    // New calls get the declared columns from the normalizer.
    simulator.addCalls('biz-1', 40);
    const more = await backfillOnce(configFor(simulator, sink, columns));
    expect(total(more, 'written')).toBe(40);
    expect(
      await differences(sink, simulator, { call_outcome: 'status', talk: 'duration_seconds', changed: 'updated_at', tracker: 'tracking_number_id' }),
    ).toEqual([]);
  });

  it('reports per business, tracking number and day the figures the served calls give', async () => {
    const sink = await freshSqlConfig(dialect, cleanups);
    await backfillOnce(configFor(simulator, sink));
    const deleted = simulator.truth('biz-2').calls[0]?.id ?? '';
    await querySql(sink, (t) => [`update ${t('calls')} set deleted_at = synced_at where id = '${deleted}'`]);

    const daily = new Map<string, { calls: number; answered: number; missed: number; talk_seconds: number }>();
    const perNumber = new Map<string, { calls: number; answered: number; missed: number; talk_seconds: number; first_call_at: string; last_call_at: string }>();
    for (const business of BUSINESSES) {
      for (const { id, raw } of simulator.truth(business).calls) {
        if (id === deleted) continue;
        const call = raw as { status: string; duration_seconds: number; created_at: string; tracking_number_id: string };
        const figures = {
          calls: 1,
          answered: call.status === 'completed' ? 1 : 0,
          missed: call.status === 'completed' ? 0 : 1,
          talk_seconds: call.duration_seconds,
        };
        const add = <T extends typeof figures>(into: Map<string, T>, key: string, extra: Omit<T, keyof typeof figures>) => {
          const current = into.get(key);
          if (current === undefined) into.set(key, { ...figures, ...extra } as T);
          else for (const field of Object.keys(figures) as (keyof typeof figures)[]) current[field] += figures[field];
        };
        add(daily, `${business}|${call.tracking_number_id}|${call.created_at.slice(0, 10)}`, {});
        const number = perNumber.get(`${business}|${call.tracking_number_id}`);
        add(perNumber, `${business}|${call.tracking_number_id}`, { first_call_at: call.created_at, last_call_at: call.created_at });
        if (number !== undefined) {
          if (call.created_at < number.first_call_at) number.first_call_at = call.created_at;
          if (call.created_at > number.last_call_at) number.last_call_at = call.created_at;
        }
      }
    }
    expect(daily.size).toBeGreaterThan(100);

    const dayText = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
    const dailyRows = await querySql(sink, (t) => [`select * from ${t('calls_daily')}`]);
    const stored = new Map(
      plainRows(dailyRows).map((row, index) => [
        `${String(row.business_id)}|${String(row.tracking_number_id)}|${dayText(dailyRows[index]?.day)}`,
        { calls: row.calls, answered: row.answered, missed: row.missed, talk_seconds: row.talk_seconds },
      ]),
    );
    expect(stored).toEqual(daily);

    const numberRows = plainRows(await querySql(sink, (t) => [`select * from ${t('calls_by_tracking_number')}`]));
    const byNumber = new Map(
      numberRows.map(({ business_id, tracking_number_id, ...figures }) => [`${String(business_id)}|${String(tracking_number_id)}`, figures]),
    );
    expect(byNumber).toEqual(perNumber);
  });
});
