import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openObjectStore, type ObjectStore } from '../object-storage/index.js';
import { ParquetEncoder } from './client.js';
import type { ParquetConfig } from './config.js';
import { ParquetSinkError } from './errors.js';
import { dayOf, partName } from './keys.js';

/** One partition: a stream's table, a business, a UTC day (`YYYY-MM-DD`). */
interface Partition {
  readonly table: string;
  readonly businessId: string;
  readonly day: string;
}

/** What a compaction did. */
interface Compaction {
  /** `stream=…/business=…/date=…/`, relative to the folder or the bucket's prefix. */
  readonly prefix: string;
  /** The files the partition held before. */
  readonly before: number;
  /** The one file it holds now; undefined when it held none. */
  readonly key: string | undefined;
  /** Rows in the file written (each record's newest written row and newest deletion row); undefined when nothing was rewritten. */
  readonly rows: number | undefined;
}

interface CompactOptions {
  /** Allow today's (or a later) partition, which a running writer may still add to. @defaultValue false */
  readonly includeToday?: boolean;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
}

const PARQUET_TYPE = 'application/vnd.apache.parquet';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Rewrites one partition's files as one, with the sink's storage and compression: of each record,
 * its newest written row and its newest deletion row, so the mirror query reads the same. The new
 * file is stored whole first (its name a hash of the files it replaces), then the old ones are
 * removed: a crash in between leaves rows twice with the same versions, which the mirror query
 * reads once, and a second run finishes the job. A partition of one file or none is left as it is.
 */
export async function compactPartition(config: ParquetConfig, partition: Partition, options: CompactOptions = {}): Promise<Compaction> {
  const storage = await openObjectStore(config.storage);
  try {
    const encoder = await ParquetEncoder.open(config.compression);
    try {
      return await compactWith(storage, encoder, partition, options);
    } finally {
      await encoder.close();
    }
  } finally {
    await storage.close();
  }
}

/** {@link compactPartition} with the storage and encoder given (a test passes a storage that fails between the two steps). */
export async function compactWith(storage: ObjectStore, encoder: ParquetEncoder, partition: Partition, options: CompactOptions = {}): Promise<Compaction> {
  const { table, businessId, day } = partition;
  const midnight = Date.parse(`${day}T00:00:00Z`);
  if (!DAY.test(day) || Number.isNaN(midnight) || dayOf(midnight) !== day)
    throw new ParquetSinkError(
      `"${day}" is not a date\nfix: give the partition's day as YYYY-MM-DD (UTC), as in its folder date=YYYY-MM-DD`,
      'PARQUET_PARTITION_INVALID',
    );
  const today = dayOf((options.now ?? Date.now)());
  if (day >= today && options.includeToday !== true)
    throw new ParquetSinkError(
      `the partition of ${day} is still open: files are dated by the UTC day they are written, and a running sync may add to today's\nfix: compact it after ${day} is over (UTC), or pass --include-today when no backfill or run writes ${businessId}/${table}`,
      'PARQUET_PARTITION_OPEN',
    );
  // Built as keys.ts builds a writer's prefix, from the table name rather than a StreamTable.
  const prefix = `stream=${table}/business=${businessId}/date=${day}/`;
  const files: string[] = [];
  for await (const object of storage.list(prefix)) {
    const name = object.key.slice(prefix.length);
    if (!name.includes('/') && name.endsWith('.parquet')) files.push(object.key);
  }
  if (files.length <= 1) return { prefix, before: files.length, key: files[0], rows: undefined };
  const local = await mkdtemp(join(storage.stagingDirectory ?? tmpdir(), 'compact-'));
  try {
    const sources: string[] = [];
    for (const [index, key] of files.entries()) {
      const path = join(local, `${index}.parquet`);
      await pipeline(await storage.read(key), createWriteStream(path));
      sources.push(path);
    }
    const output = join(local, 'compacted.parquet');
    const rows = await encoder.compact(sources, output);
    const key = prefix + partName(['compact', ...files]);
    await storage.put(key, { path: output, consume: true }, { contentType: PARQUET_TYPE });
    for (const old of files) if (old !== key) await storage.delete(old);
    return { prefix, before: files.length, key, rows };
  } finally {
    await rm(local, { recursive: true, force: true });
  }
}
