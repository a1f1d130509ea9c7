import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore, type ObjectStore } from '../../../connectors/object-storage/index.js';
import { ParquetEncoder } from '../../../connectors/parquet/client.js';
import { compactPartition, compactWith } from '../../../connectors/parquet/compact.js';
import { parquetConfigSchema } from '../../../connectors/parquet/index.js';
import { callColumns } from '../../../src/normalize/columns.js';
import { downloadObjects, readMirror, removeCopy, type MirrorRow } from '../../support/parquet-lake.js';
import { S3_TEST_CREDENTIALS, startS3Server, type TestS3Server } from '../../support/s3-server.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { simulatorScene, type SimulatorScene } from '../support/simulator-scene.js';

const callsTable = { stream: 'calls', table: 'calls', columns: callColumns };

/** Every business's calls read the documented way (test/support/parquet-mirror-query.ts). */
async function mirror(store: ObjectStore): Promise<MirrorRow[]> {
  const copy = await downloadObjects(store);
  try {
    return await readMirror(copy, callsTable);
  } finally {
    await removeCopy(copy);
  }
}

/** The Parquet files of each `stream=calls/business=…/date=…/` folder, by folder. */
async function partitions(store: ObjectStore): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for await (const { key } of store.list('stream=calls/')) {
    if (!key.endsWith('.parquet')) continue;
    const folder = key.slice(0, key.lastIndexOf('/') + 1);
    found.set(folder, [...(found.get(folder) ?? []), key]);
  }
  return found;
}

/** The store, except that every `delete` fails: a compaction that stops after its new file is stored. */
function failingDeletes(store: ObjectStore): ObjectStore {
  return {
    ...(store.stagingDirectory === undefined ? {} : { stagingDirectory: store.stagingDirectory }),
    put: (key, body, options) => store.put(key, body, options),
    head: (key) => store.head(key),
    read: (key) => store.read(key),
    list: (prefix) => store.list(prefix),
    delete: () => Promise.reject(new Error('stopped between storing the new file and removing the old ones')),
    ping: () => store.ping(),
    close: () => Promise.resolve(),
  };
}

/**
 * A backfill in pages of 100 (a file each), then 5 changed calls (new versions) and 3 deleted ones
 * marked by a reconcile (deletion rows), so a partition holds every kind of row.
 */
async function fillLake(scene: SimulatorScene, storage: Record<string, unknown>): Promise<string> {
  const { simulator, directory } = scene;
  const config = join(directory, 'callsync.json');
  const state = join(directory, 'state.db');
  const options = { sink: { type: 'parquet', storage, state: { type: 'sqlite', path: state } }, streams: ['calls'], pageSize: 100, rateLimit: false } as const;
  writeFileSync(config, JSON.stringify(configDocument(simulator, state, { ...options, revisit: { window: '1h', every: 1 } })));
  const run = async (args: string[]): Promise<void> => {
    const result = await runCli(args);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  };
  await run(['backfill', '--config', config, '--no-progress']);
  for (const call of simulator.truth('biz-1').calls.slice(-5)) simulator.updateCallTranscription('biz-1', call.id, `Late transcription of ${call.id}.`);
  simulator.deleteCalls(
    'biz-1',
    simulator
      .truth('biz-1')
      .calls.slice(10, 13)
      .map((call) => call.id),
  );
  await run(['backfill', '--config', config, '--no-progress']);
  await run(['reconcile', '--config', config, '--repair', '--confirm-deletions', '--json']);
  return config;
}

const scene = { businesses: 2, calls: 450, voicemails: 0, numbers: 1, seed: 35, rateLimit: false } as const;

function describeCompaction(name: string, setUp: () => Promise<{ storage: Record<string, unknown>; close: () => Promise<void> }>): void {
  describe(`callsync compact (${name}): one file per partition, the mirror read the same`, () => {
    const lake = simulatorScene(`parquet-compact-${name.replaceAll(' ', '-')}`, scene);
    let storage: Record<string, unknown>;
    let close: () => Promise<void>;
    let config: string;
    let store: ObjectStore;
    beforeAll(async () => {
      ({ storage, close } = await setUp());
      config = await fillLake(lake, storage);
      store = await openObjectStore(parquetConfigSchema.shape.storage.parse(storage));
    });
    afterAll(async () => {
      await store.close();
      await close();
    });

    it('rewrites a partition as one file; a stop between the new file and the removals reads the same, and a second run finishes', async () => {
      const before = await mirror(store);
      expect(before).toHaveLength(2 * scene.calls);
      expect(before.filter((row) => row.deleted_at !== null)).toHaveLength(3);
      const folders = await partitions(store);
      const [folder, files] = [...folders].filter(([key]) => key.includes('business=biz-1/')).sort((a, b) => b[1].length - a[1].length)[0] ?? [];
      const day = /date=(\d{4}-\d{2}-\d{2})\//.exec(folder ?? '')?.[1];
      expect(files?.length).toBeGreaterThan(4);
      if (folder === undefined || files === undefined || day === undefined) return;

      // Today's partition is refused unless asked for: a running sync may still add to it.
      const refused = await runCli(['compact', '--config', config, '--business', 'biz-1', '--stream', 'calls', '--date', day]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`the partition of ${day} is still open`);
      expect(refused.stderr).toContain('fix: ');

      // Stopped after the new file is stored: old and new files side by side, the same mirror.
      const encoder = await ParquetEncoder.open('zstd');
      try {
        const partition = { table: 'calls', businessId: 'biz-1', day };
        await expect(compactWith(failingDeletes(store), encoder, partition, { includeToday: true })).rejects.toThrow(/stopped between/);
      } finally {
        await encoder.close();
      }
      expect((await partitions(store)).get(folder)).toHaveLength(files.length + 1);
      expect(await mirror(store)).toEqual(before);

      const compacted = await runCli(['compact', '--config', config, '--business', 'biz-1', '--stream', 'calls', '--date', day, '--include-today', '--json']);
      expect(compacted.code, compacted.stderr).toBe(0);
      const result = JSON.parse(compacted.stdout) as { before: number; key: string; rows: number };
      expect(result.before).toBe(files.length + 1);
      // Of each call its newest written row, plus the 3 deletion rows: the older versions are gone.
      expect(result.rows).toBe(scene.calls + 3);
      const after = await partitions(store);
      expect(after.get(folder)).toEqual([result.key]);
      // The other business's partitions are left as they were.
      for (const [other, keys] of folders) if (other !== folder) expect(after.get(other)).toEqual(keys);
      expect(await mirror(store)).toEqual(before);

      // Once one file, nothing to do.
      const sink = parquetConfigSchema.parse({ type: 'parquet', storage });
      expect(await compactPartition(sink, { table: 'calls', businessId: 'biz-1', day }, { includeToday: true })).toMatchObject({ before: 1, rows: undefined });
    });
  });
}

describeCompaction('local folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'callsync-compact-lake-'));
  return { storage: { type: 'folder', path: join(dir, 'lake') }, close: () => rm(dir, { recursive: true, force: true }) };
});

describeCompaction('S3-compatible', async () => {
  const server: TestS3Server = await startS3Server();
  await server.createBucket('calls-lake');
  return {
    storage: { type: 's3', bucket: 'calls-lake', prefix: 'mirror/', endpoint: server.endpoint, forcePathStyle: true, ...S3_TEST_CREDENTIALS },
    close: () => server.close(),
  };
});
