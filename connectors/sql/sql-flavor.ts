import type { ColumnType, Json } from '../../src/sink.js';

/**
 * What differs between the SQL targets; everything else in `connectors/sql` is shared.
 * Each dialect folder provides one (`sqlite-flavor.ts`, `postgres-flavor.ts`).
 */
export interface SqlFlavor {
  readonly dialect: 'sqlite' | 'postgres';
  /** Schema holding every table; undefined for SQLite's main database. */
  readonly schema: string | undefined;
  /** Most bind parameters one statement may carry; upserts are chunked below it. */
  readonly maxBindParameters: number;
  /** Column type for a stream column type. */
  columnType(type: ColumnType): string;
  /** Column type of `raw` and `sync_state.position`. */
  readonly jsonType: string;
  readonly timestampType: string;
  /** Counters (`records_synced`, `attempts`). */
  readonly counterType: string;
  /** Appended after a CREATE TABLE's column list (SQLite: `strict`). */
  readonly tableOptions: string | undefined;
  /** The n-th (1-based) bind placeholder. */
  placeholder(index: number): string;
  /** SQL true when `left` and `right` differ, NULLs compared as values. */
  differs(left: string, right: string): string;
  /** True when the error is the target refusing this record's data, not the connection or the schema. */
  isRecordRejection(error: unknown): boolean;
  /** The database's own words for a rejection, as stored in `dead_letters.reason`. */
  rejectionReason(error: unknown): string;
  decodeJson(value: unknown): Json;
  decodeTimestamp(value: unknown): string;
  decodeInteger(value: unknown): number;
}
