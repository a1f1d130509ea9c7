import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { mirrorQuery } from './parquet-mirror-query.js';
import type { ObjectStore } from '../../connectors/object-storage/index.js';
import type { StreamTable } from '../../src/sink/sink.js';

/** A row of the mirror as DuckDB reads it: timestamps as `YYYY-MM-DDTHH:MM:SSZ`, integers as numbers. */
export type MirrorRow = Record<string, string | number | boolean | null>;

/**
 * Copies every object of the store under `prefix` into a fresh local folder (DuckDB's httpfs is
 * not available offline), keeping the keys as paths; returns the folder.
 */
export async function downloadObjects(store: ObjectStore, prefix = ''): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'callsync-lake-copy-'));
  for await (const object of store.list(prefix)) {
    const path = join(folder, object.key);
    await mkdir(dirname(path), { recursive: true });
    await pipeline(await store.read(object.key), createWriteStream(path));
  }
  return folder;
}

/**
 * The mirror of one stream table read from a local copy of the lake with the documented query
 * (`test/support/parquet-mirror-query.ts`), ordered by business and id; [] when the stream has no file.
 */
export async function readMirror(folder: string, table: StreamTable, where = 'true'): Promise<MirrorRow[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`SET TimeZone = 'UTC'`);
    const glob = `'${join(folder, `stream=${table.table}`, '*', '*', '*.parquet').replaceAll("'", "''")}'`;
    const files = await connection.runAndReadAll(`SELECT count(*) AS n FROM glob(${glob})`);
    if (Number(files.getRowObjectsJS()[0]?.n) === 0) return [];
    const timestamps = [...table.columns.filter((column) => column.type === 'timestamp').map((column) => column.name), 'synced_at', 'deleted_at'];
    const replace = timestamps.map((name) => `strftime("${name}", '%Y-%m-%dT%H:%M:%SZ') AS "${name}"`).join(', ');
    const reader = await connection.runAndReadAll(`SELECT * REPLACE (${replace}) FROM (${mirrorQuery(glob)}) WHERE ${where} ORDER BY business_id, id`);
    return reader
      .getRowObjectsJS()
      .map((row) =>
        Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : (value as MirrorRow[string])])),
      );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Removes a local copy made by {@link downloadObjects}. */
export function removeCopy(folder: string): Promise<void> {
  return rm(folder, { recursive: true, force: true });
}
