import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSinkFactory } from '../../../connectors/clickhouse/index.js';
import { decodeColumn } from '../../../connectors/clickhouse/mapping.js';
import { callColumns, numberColumns, voicemailColumns } from '../../../src/normalize/index.js';
import type { StreamTable } from '../../../src/sink/sink.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { diffMirror, type MirrorDiff } from '../support/sqlite-mirror.js';
import { clickhouseUrl, uniqueName } from '../services.js';

const server = new URL(clickhouseUrl).origin;
const tables: readonly StreamTable[] = [
  { stream: 'calls', table: 'calls', columns: callColumns },
  { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns },
  { stream: 'numbers', table: 'numbers', columns: numberColumns },
];
const client = createClient({ url: server });
const database = uniqueName('exact');
let simulator: Simulator;
let directory: string;

/** The documented read: the current row per key (`FINAL`), live or deleted. */
async function mirror(table: StreamTable, businessId: string, deleted: boolean): Promise<Record<string, unknown>[]> {
  const result = await client.query({
    query: `SELECT * FROM ${database}.${table.table} FINAL WHERE business_id = '${businessId}' AND deleted_at IS ${deleted ? 'NOT ' : ''}NULL ORDER BY id`,
    format: 'JSONEachRow',
  });
  return result.json<Record<string, unknown>>();
}

/** Every live row of every business × stream against the simulator's truth, decoded by its column type. */
async function diffAll(): Promise<Record<string, MirrorDiff>> {
  const diffs: Record<string, MirrorDiff> = {};
  for (const business of simulator.businesses) {
    const truth = simulator.truth(business.name);
    for (const table of tables) {
      const rows = (await mirror(table, business.name, false)).map((row) => ({
        id: String(row.id),
        fields: Object.fromEntries(table.columns.map((column) => [column.name, decodeColumn(column.type, row[column.name])])),
        raw: JSON.parse(String(row.raw)) as unknown,
      }));
      diffs[`${business.name}/${table.stream}`] = diffMirror(rows, truth[table.stream as 'calls' | 'voicemails' | 'numbers'], {
        field: (stored, expected) => stored === expected,
        raw: (stored, served) => JSON.stringify(stored) === JSON.stringify(served),
      });
    }
  }
  return diffs;
}

/** Every business × stream equal to the truth, each difference named. */
function expectExact(diffs: Record<string, MirrorDiff>): void {
  expect(diffs).toEqual(Object.fromEntries(Object.keys(diffs).map((key) => [key, { missing: [], unexpected: [], different: [] }])));
}

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 2_000, voicemails: 60, numbers: 5, seed: 34, rateLimit: false });
  directory = mkdtempSync(join(tmpdir(), 'callsync-clickhouse-exact-'));
  // The tables exist before the first run with merges stopped, so every version stays a row of its own and the read relies on FINAL alone.
  const sink = await clickhouseSinkFactory.create(
    { type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 },
    { logger: pino({ level: 'silent' }) },
  );
  await sink.prepare(tables);
  await sink.close();
  for (const table of [...tables.map((t) => t.table), 'sync_state', 'dead_letters']) await client.command({ query: `SYSTEM STOP MERGES ${database}.${table}` });
});

afterAll(async () => {
  await simulator.close();
  await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('clickhouse: backfill killed with SIGKILL, rerun, then upstream adds, changes and deletes, and a reconcile', () => {
  it('ends equal to upstream read through FINAL: nothing lost, nothing twice, deletions marked', async () => {
    const configPath = join(directory, 'callsync.json');
    const document = configDocument(simulator, '', {
      sink: { type: 'clickhouse', url: server, database },
      pageSize: 100,
      rateLimit: false,
      // Changed records are read again on every run (the late transcriptions of recent calls).
      revisit: { window: '1h', every: 1 },
      logLevel: 'info',
    });
    writeFileSync(configPath, JSON.stringify({ ...document, reconcile: { deleteAfter: '1ms' } }));

    await killBackfillAfterPages(configPath, 8);
    const rerun = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expectExact(await diffAll());

    simulator.addCalls('biz-1', 100);
    const added = simulator.truth('biz-1').calls.slice(-100);
    expect((await runCli(['backfill', '--config', configPath, '--no-progress'])).code).toBe(0);
    for (const [index, call] of added.slice(0, 5).entries()) simulator.updateCallTranscription('biz-1', call.id, `changed upstream ${index}`);
    const deleted = simulator
      .truth('biz-2')
      .calls.slice(100, 103)
      .map((call) => call.id);
    simulator.deleteCalls('biz-2', deleted);
    expect((await runCli(['backfill', '--config', configPath, '--no-progress'])).code).toBe(0);
    // Two whole walks deleteAfter apart must both miss a record before it is marked deleted.
    for (let walk = 0; walk < 2; walk++) await runCli(['reconcile', '--config', configPath, '--repair']);
    const check = await runCli(['reconcile', '--config', configPath]);
    expect(check.code, check.stdout + check.stderr).toBe(0);

    expectExact(await diffAll());
    const calls = tables[0] as StreamTable;
    const changed = (await mirror(calls, 'biz-1', false)).filter((row) => String(row.transcription_text).startsWith('changed upstream'));
    expect(changed.map((row) => row.transcription_text).sort()).toEqual([0, 1, 2, 3, 4].map((index) => `changed upstream ${index}`));
    expect((await mirror(calls, 'biz-2', true)).map((row) => String(row.id)).sort()).toEqual([...deleted].sort());
    expect(await mirror(calls, 'biz-1', true)).toEqual([]);
    // Every key's versions are distinct, so which row FINAL keeps never depends on merge order.
    const ties = await client.query({
      query: `SELECT count() AS n FROM (SELECT business_id, id, version FROM ${database}.calls GROUP BY business_id, id, version HAVING count() > 1)`,
      format: 'JSONEachRow',
    });
    expect(await ties.json()).toEqual([{ n: '0' }]);
    // And the table does hold several versions of some keys: the replays and changes were rows, not updates.
    const versions = await client.query({ query: `SELECT count() - uniqExact(business_id, id) AS extra FROM ${database}.calls`, format: 'JSONEachRow' });
    expect(Number((await versions.json<{ extra: string }>())[0]?.extra)).toBeGreaterThanOrEqual(5 + 3);
  });
});
