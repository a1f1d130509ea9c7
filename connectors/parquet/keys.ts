import { createHash } from 'node:crypto';
import type { StreamTable } from '../../src/sink/sink.js';

/**
 * Object keys, Hive-style: `stream=<table>/business=<name>/date=<YYYY-MM-DD>/part-<hash>.parquet`.
 * `date` is the UTC day the file was written: a day's partition is complete once the day is over
 * (so compacting it races no writer), and a change or deletion lands beside the day it happened.
 * Business names are letters, digits, `_`, `.` and `-` (the config allows no other), so no part
 * needs escaping.
 */

/** The folder of one stream's files for one business (a prefix to list). */
function businessPrefix(table: StreamTable, businessId: string): string {
  return `stream=${table.table}/business=${businessId}/`;
}

/** The folder of one day's files. */
export function partitionPrefix(table: StreamTable, businessId: string, day: string): string {
  return `${businessPrefix(table, businessId)}date=${day}/`;
}

/** The UTC day of an instant, as `YYYY-MM-DD`. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/**
 * A file's name from what identifies its flush: for records, the business, the stream, the
 * checkpoint the batch starts from and its ids, in order. A crash after the upload but before the
 * checkpoint moved repeats the same batch from the same checkpoint: the same name, so the rerun
 * overwrites the file instead of adding a second copy.
 */
export function partName(identity: readonly unknown[]): string {
  return `part-${createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 32)}.parquet`;
}
