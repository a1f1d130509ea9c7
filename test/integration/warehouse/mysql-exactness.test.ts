import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callColumns, numberColumns, voicemailColumns } from '../../../src/normalize/index.js';
import type { StreamTable } from '../../../src/sink/sink.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { freshMysqlDatabase, type FreshMysqlDatabase } from '../../support/mysql-database.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { diffMirror, type MirrorDiff } from '../support/sqlite-mirror.js';

const tables: readonly StreamTable[] = [
  { stream: 'calls', table: 'calls', columns: callColumns },
  { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns },
  { stream: 'numbers', table: 'numbers', columns: numberColumns },
];
let database: FreshMysqlDatabase;
let connection: mysql.Connection;
let simulator: Simulator;
let directory: string;

/** The documented read: a business's rows of one table, live (`deleted_at is null`) or deleted. */
async function mirror(table: StreamTable, businessId: string, deleted: boolean): Promise<Record<string, unknown>[]> {
  const [rows] = await connection.query(`select * from \`${table.table}\` where business_id = ? and deleted_at is ${deleted ? 'not ' : ''}null order by id`, [
    businessId,
  ]);
  return rows as Record<string, unknown>[];
}

/** Every live row of every business × stream against the simulator's truth; `raw` must be the very text, byte for byte. */
async function diffAll(): Promise<Record<string, MirrorDiff>> {
  const diffs: Record<string, MirrorDiff> = {};
  for (const business of simulator.businesses) {
    const truth = simulator.truth(business.name);
    for (const table of tables) {
      const rows = (await mirror(table, business.name, false)).map((row) => ({
        id: String(row.id),
        fields: Object.fromEntries(table.columns.map((column) => [column.name, row[column.name]])),
        raw: row.raw,
      }));
      diffs[`${business.name}/${table.stream}`] = diffMirror(rows, truth[table.stream as 'calls' | 'voicemails' | 'numbers'], {
        field: (stored, expected) => stored === expected,
        raw: (stored, served) => stored === JSON.stringify(served),
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
  directory = mkdtempSync(join(tmpdir(), 'callsync-mysql-exact-'));
  database = await freshMysqlDatabase('exact');
  connection = await mysql.createConnection({ uri: database.url });
});

afterAll(async () => {
  await simulator.close();
  await connection.end();
  await database.drop();
  rmSync(directory, { recursive: true, force: true });
});

describe('mysql (on MariaDB): backfill killed with SIGKILL, rerun, then upstream adds, changes and deletes, and a reconcile', () => {
  it('ends equal to upstream: nothing lost, nothing twice, deletions marked', async () => {
    const configPath = join(directory, 'callsync.json');
    const document = configDocument(simulator, '', {
      sink: { type: 'mysql', url: database.url },
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
    // One row per key: the primary key holds, and no record was stored twice under another id.
    const [[counts]] = (await connection.query('select count(*) as n, count(distinct business_id, id) as distinct_keys from calls')) as unknown as [
      [{ n: number; distinct_keys: number }],
    ];
    expect(counts.n).toBe(counts.distinct_keys);
    expect(counts.n).toBe(simulator.truth('biz-1').calls.length + simulator.truth('biz-2').calls.length + deleted.length);
  });
});
