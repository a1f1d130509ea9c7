import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore, type ObjectStoreConfig } from '../../../connectors/object-storage/index.js';
import { parquetConfigSchema } from '../../../connectors/parquet/index.js';
import { callColumns } from '../../../src/normalize/columns.js';
import type { Simulator } from '../../../simulator/index.js';
import { downloadObjects, readMirror, removeCopy } from '../../support/parquet-lake.js';
import { startS3Server, type TestS3Server } from '../../support/s3-server.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { diffMirror, type MirrorComparison, type MirrorDiff } from '../support/sqlite-mirror.js';

/** `raw` is the text stored, which must be the record as served, byte for byte (key order included). */
const PARQUET: MirrorComparison = { field: (stored, expected) => stored === expected, raw: (stored, served) => stored === JSON.stringify(served) };

/** s3rver checks the key id only; the secret is one no output may show. */
const SECRET = 'parquet-exactness-secret-6f1d2c';

const callsTable = { stream: 'calls', table: 'calls', columns: callColumns };

interface Mirror {
  readonly diff: MirrorDiff;
  readonly stored: number;
  readonly deleted: string[];
}

/** The documented read (test/support/parquet-mirror-query.ts) of every business's calls, after every process ended. */
async function readLake(storage: ObjectStoreConfig, simulator: Simulator): Promise<Record<string, Mirror>> {
  const store = await openObjectStore(storage);
  const copy = await downloadObjects(store);
  try {
    const result: Record<string, Mirror> = {};
    for (const { name } of simulator.businesses) {
      const rows = await readMirror(copy, callsTable, `business_id = '${name}'`);
      const live = rows.filter((row) => row.deleted_at === null);
      result[name] = {
        diff: diffMirror(
          live.map((row) => ({ id: String(row.id), fields: row, raw: row.raw })),
          simulator.truth(name).calls,
          PARQUET,
        ),
        stored: rows.length,
        deleted: rows.filter((row) => row.deleted_at !== null).map((row) => String(row.id)),
      };
    }
    return result;
  } finally {
    await removeCopy(copy);
    await store.close();
  }
}

/**
 * A backfill killed with SIGKILL mid-way and run again; then upstream adds 100 calls, changes 5 and
 * deletes 3, a backfill catches up and a reconcile repairs: the mirror equals upstream.
 */
async function killRerunReconcile(
  simulator: Simulator,
  directory: string,
  storage: Record<string, unknown>,
): Promise<{ mirror: Record<string, Mirror>; deleted: string[] }> {
  const config = join(directory, 'callsync.json');
  const state = join(directory, 'state.db');
  // A revisit on every run re-reads the last hour, as `run` does each hour: how late changes arrive.
  const options = {
    sink: { type: 'parquet', storage, state: { type: 'sqlite', path: state } },
    streams: ['calls'],
    pageSize: 100,
    rateLimit: false,
    revisit: { window: '1h', every: 1 },
    logLevel: 'info',
  } as const;
  writeFileSync(config, JSON.stringify(configDocument(simulator, state, options)));
  const outputs: string[] = [];

  const killed = await killBackfillAfterPages(config, 8);
  outputs.push(killed.stderr(), killed.stdout());

  const run = async (args: string[]): Promise<void> => {
    const result = await runCli(args);
    outputs.push(result.stderr, result.stdout);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  };
  await run(['backfill', '--config', config, '--no-progress']);
  simulator.addCalls('biz-1', 60);
  simulator.addCalls('biz-2', 40);
  await run(['backfill', '--config', config, '--no-progress']);
  for (const call of simulator.truth('biz-1').calls.slice(-5)) simulator.updateCallTranscription('biz-1', call.id, `Late transcription of ${call.id}.`);
  const deleted = simulator
    .truth('biz-2')
    .calls.slice(100, 103)
    .map((call) => call.id);
  simulator.deleteCalls('biz-2', deleted);
  await run(['backfill', '--config', config, '--no-progress']);
  await run(['reconcile', '--config', config, '--repair', '--confirm-deletions', '--json']);
  expect(outputs.join('\n')).not.toContain(SECRET);
  return { mirror: await readLake(parquetConfigSchema.shape.storage.parse(storage), simulator), deleted };
}

function expectExact(mirror: Record<string, Mirror>, deleted: readonly string[]): void {
  for (const [business, read] of Object.entries(mirror)) expect(read.diff, business).toEqual({ missing: [], unexpected: [], different: [] });
  expect(mirror['biz-2']?.deleted).toEqual([...deleted].sort());
  expect(mirror['biz-1']?.deleted).toEqual([]);
  expect(mirror['biz-1']?.stored).toBe(1_560);
  expect(mirror['biz-2']?.stored).toBe(1_540);
}

const scene = { businesses: 2, calls: 1_500, voicemails: 10, numbers: 2, seed: 34, rateLimit: false } as const;

describe('parquet sink (local folder): exact after kill -9, a rerun, and upstream adds, changes and deletes then a reconcile', () => {
  const local = simulatorScene('parquet-exact', scene);

  it('holds exactly what upstream holds, read the documented way, deletions marked', async () => {
    const { simulator, directory } = local;
    const { mirror, deleted } = await killRerunReconcile(simulator, directory, { type: 'folder', path: join(directory, 'lake') });
    expectExact(mirror, deleted);
  });
});

describe('parquet sink (S3-compatible): exact after kill -9, a rerun, and upstream adds, changes and deletes then a reconcile', () => {
  const remote = simulatorScene('parquet-s3-exact', scene);
  let server: TestS3Server;
  beforeAll(async () => {
    server = await startS3Server();
    await server.createBucket('calls-lake');
  });
  afterAll(async () => {
    await server.close();
  });

  it('holds exactly what upstream holds, read the documented way, deletions marked', async () => {
    const { simulator, directory } = remote;
    const storage = {
      type: 's3',
      bucket: 'calls-lake',
      prefix: 'mirror/',
      endpoint: server.endpoint,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      accessKeySecret: SECRET,
    };
    const { mirror, deleted } = await killRerunReconcile(simulator, directory, storage);
    expectExact(mirror, deleted);
  });
});
