import type { ColumnValue, Json, Sink, StreamTable, SyncRecord } from '../../../src/sink/sink.js';

/** A stored record as the suite compares it, whatever the target keeps it in. */
export interface StoredRow {
  readonly businessId: string;
  readonly id: string;
  readonly source: string;
  /** One value per column of the table; integers as numbers, timestamps as `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly fields: Record<string, ColumnValue>;
  readonly raw: Json;
  /** When the target last changed the row; omitted by targets that keep no such value. */
  readonly syncedAt?: string;
}

/** One fresh, isolated sink (own file, schema, portal…) and the means to look behind it. */
export interface SinkUnderTest {
  readonly sink: Sink;
  /** Rows of `table` the target holds for `businessId` and has not deleted, sorted by id, read from the target itself. */
  readRows(table: StreamTable, businessId: string): Promise<StoredRow[]>;
  /** Ids of `table` the target holds as deleted for `businessId` (SQL: `deleted_at` set; HubSpot: archived; webhook: a `deleted` event), sorted. */
  readDeleted(table: StreamTable, businessId: string): Promise<string[]>;
  /**
   * A voicemail record this sink refuses and a pattern its reason must match: the target's own
   * refusal where the target refuses single records, else one the sink itself cannot store.
   */
  rejectableRecord(businessId: string): { record: SyncRecord; reason: RegExp };
  /** Makes storing a checkpoint fail (a crash before it lands) until the returned function runs. */
  breakCheckpoints(): Promise<() => Promise<void>>;
  /** Removes everything the instance created; the suite closes the sink before. */
  cleanup(): Promise<void>;
}

/** How a connector joins `describeSinkConformance`. */
export interface SinkHarness {
  readonly name: string;
  /**
   * True when the target takes a batch before the state store commits (HubSpot, webhook): a failed
   * commit leaves the records at the target, and a receiver that deduplicates reports the retry
   * as unchanged. False when records and checkpoint commit together (SQL).
   */
  readonly deliveredBeforeCommit: boolean;
  /** False for targets with a fixed set of objects (a CRM, whose target declares `writes`): a custom stream's records are kept by the state store alone, never dead letters. @defaultValue true */
  readonly customTables?: boolean;
  /** True when the target counts a retried delivery as unchanged (a receiver deduplicating on `Idempotency-Key`). @defaultValue false */
  readonly targetCountsReplays?: boolean;
  create(): Promise<SinkUnderTest>;
}
