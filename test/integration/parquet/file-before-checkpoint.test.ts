import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FOLDER_STAGING } from '../../../connectors/object-storage/folder.js';
import { parquetConfigSchema, parquetSinkFactory } from '../../../connectors/parquet/index.js';
import type { StreamTable, SyncRecord } from '../../../src/sink/sink.js';
import { downloadObjects, readMirror, removeCopy } from '../../support/parquet-lake.js';
import { openObjectStore } from '../../../connectors/object-storage/index.js';

const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [{ name: 'direction', type: 'text' }] };
const call = (businessId: string, id: number): SyncRecord => ({ businessId, id: `c${id}`, source: 'v1', fields: { direction: 'inbound' }, raw: { id } });

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

// Into a folder the sink hands the state store its copy while the file is still being encoded and
// stored (connectors/parquet/target.ts): the checkpoint must still wait for the file.
describe('parquet sink into a folder', () => {
  it('moves no checkpoint and keeps no key when the file cannot be stored, and stores both once it can', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'callsync-parquet-durable-'));
    folders.push(folder);
    const lake = join(folder, 'lake');
    const storage = { type: 'folder', path: lake } as const;
    const config = parquetConfigSchema.parse({ type: 'parquet', storage, state: { type: 'sqlite', path: join(folder, 'state.db') } });
    const sink = await parquetSinkFactory.create(config, { logger: pino({ level: 'silent' }) });
    try {
      await sink.write({ businessId: 'acme', table: calls, records: [call('acme', 1)], deadLetters: [] }, { page: 1 });
      // A file where beta's partition folder would go: its file's rename into place fails.
      await mkdir(join(lake, 'stream=calls'), { recursive: true });
      await writeFile(join(lake, 'stream=calls', 'business=beta'), 'in the way');
      const batch = { businessId: 'beta', table: calls, records: [call('beta', 1), call('beta', 2)], deadLetters: [] };
      await expect(sink.write(batch, { page: 1 })).rejects.toThrow(/ENOTDIR|EEXIST|not a directory|file already exists/i);
      expect(await sink.checkpoints.load('beta', 'calls')).toBeUndefined();
      expect(await sink.records.count('beta', calls)).toBe(0);
      expect(await sink.deadLetters.list({ stream: 'calls' })).toEqual([]);
      expect(await readdir(join(lake, FOLDER_STAGING))).toEqual([]);

      await rm(join(lake, 'stream=calls', 'business=beta'));
      expect(await sink.write(batch, { page: 1 })).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
      expect(await sink.checkpoints.load('beta', 'calls')).toEqual({ businessId: 'beta', stream: 'calls', position: { page: 1 }, recordsSynced: 2 });
      expect(await sink.records.count('beta', calls)).toBe(2);
    } finally {
      await sink.close();
    }
    const reader = await openObjectStore(storage);
    const copy = await downloadObjects(reader);
    try {
      const rows = await readMirror(copy, calls, `business_id = 'beta'`);
      expect(rows.map((row) => row.id).sort()).toEqual(['c1', 'c2']);
    } finally {
      await removeCopy(copy);
      await reader.close();
    }
  });
});
