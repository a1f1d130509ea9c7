import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDuckDb, openDuckDbInstance } from '../../../connectors/duckdb/client.js';
import type { Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { diffMirror, type MirrorComparison, type MirrorDiff } from '../support/sqlite-mirror.js';

/** A DuckDB column value in the terms of the truth: TIMESTAMPTZ comes back a Date, BIGINT a bigint. */
function same(stored: unknown, expected: string | number | null): boolean {
  if (stored === null || expected === null) return stored === expected;
  if (stored instanceof Date) return typeof expected === 'string' && stored.getTime() === Date.parse(expected);
  if (typeof stored === 'bigint') return Number(stored) === expected;
  return stored === expected;
}

/** `raw` is VARCHAR: the text stored must be the record as served, byte for byte (key order included). */
const DUCKDB: MirrorComparison = { field: same, raw: (stored, served) => stored === JSON.stringify(served) };

interface Mirror {
  readonly diff: MirrorDiff;
  /** Rows stored, deleted ones included, and their distinct ids. */
  readonly stored: number;
  readonly distinct: number;
  readonly deleted: string[];
}

/** The documented read of the mirror (`deleted_at is null`), after every process ended, per business. */
async function readMirror(path: string, simulator: Simulator): Promise<Record<string, Mirror>> {
  const instance = await openDuckDbInstance(path);
  const connection = await connectDuckDb(instance);
  try {
    const result: Record<string, Mirror> = {};
    for (const { name } of simulator.businesses) {
      const read = async (where: string) =>
        (await connection.runAndReadAll(`select * from calls where business_id = $1 ${where} order by id`, [name])).getRowObjectsJS();
      const live = await read('and deleted_at is null');
      const all = await read('');
      result[name] = {
        diff: diffMirror(
          live.map((row) => ({ id: row.id as string, fields: row, raw: row.raw })),
          simulator.truth(name).calls,
          DUCKDB,
        ),
        stored: all.length,
        distinct: new Set(all.map((row) => row.id as string)).size,
        deleted: (await read('and deleted_at is not null')).map((row) => row.id as string),
      };
    }
    return result;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('duckdb sink: exact after kill -9, a rerun, and upstream adds, changes and deletes then a reconcile', () => {
  const scene = simulatorScene('duckdb-exact', { businesses: 2, calls: 3_000, voicemails: 10, numbers: 2, seed: 34, rateLimit: false });

  it('holds exactly what upstream holds, read the documented way, deletions marked', async () => {
    const { simulator, directory } = scene;
    const path = join(directory, 'mirror.duckdb');
    const config = join(directory, 'callsync.json');
    // A revisit on every run re-reads the last hour, as `run` does each hour: how late changes arrive.
    const options = {
      sink: { type: 'duckdb', path },
      streams: ['calls'],
      pageSize: 100,
      rateLimit: false,
      revisit: { window: '1h', every: 1 },
      logLevel: 'info',
    } as const;
    writeFileSync(config, JSON.stringify(configDocument(simulator, path, options)));

    await killBackfillAfterPages(config, 8);

    const rerun = await runCli(['backfill', '--config', config, '--no-progress']);
    expect(rerun.code, rerun.stderr).toBe(0);

    simulator.addCalls('biz-1', 60);
    simulator.addCalls('biz-2', 40);
    const caughtUp = await runCli(['backfill', '--config', config, '--no-progress']);
    expect(caughtUp.code, caughtUp.stderr).toBe(0);
    const recent = simulator.truth('biz-1').calls.slice(-5);
    for (const call of recent) simulator.updateCallTranscription('biz-1', call.id, `Late transcription of ${call.id}.`);
    const old = simulator
      .truth('biz-2')
      .calls.slice(100, 103)
      .map((call) => call.id);
    simulator.deleteCalls('biz-2', old);

    const next = await runCli(['backfill', '--config', config, '--no-progress']);
    expect(next.code, next.stderr).toBe(0);
    const reconciled = await runCli(['reconcile', '--config', config, '--repair', '--confirm-deletions', '--json']);
    expect(reconciled.code, reconciled.stderr + reconciled.stdout).toBe(0);

    const mirror = await readMirror(path, simulator);
    for (const [business, read] of Object.entries(mirror)) {
      expect(read.diff, business).toEqual({ missing: [], unexpected: [], different: [] });
      expect(read.stored, `${business}: a row twice`).toBe(read.distinct);
    }
    expect(mirror['biz-2']?.deleted).toEqual([...old].sort());
    expect(mirror['biz-1']?.deleted).toEqual([]);
    expect(mirror['biz-1']?.stored).toBe(3_060);
    expect(mirror['biz-2']?.stored).toBe(3_040);
  });
});
