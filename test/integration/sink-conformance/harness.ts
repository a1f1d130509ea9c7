import type { ColumnValue, Json, Sink, StreamTable, SyncRecord } from '../../../src/sink.js';

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
  /** Rows of `table` stored for `businessId`, sorted by id, read from the target itself. */
  readRows(table: StreamTable, businessId: string): Promise<StoredRow[]>;
  /**
   * A voicemail record this target refuses and a pattern its reason (the target's own message)
   * must match; omit for targets that accept anything.
   */
  rejectableRecord?(businessId: string): { record: SyncRecord; reason: RegExp };
  /** Makes storing a checkpoint fail (a crash before it lands) until the returned function runs. */
  breakCheckpoints?(): Promise<() => Promise<void>>;
  /** Removes everything the instance created; the suite closes the sink before. */
  cleanup(): Promise<void>;
}

/** How a connector joins `describeSinkConformance`. */
export interface SinkHarness {
  readonly name: string;
  /** False for targets with a fixed set of objects (a CRM); skips the custom stream table case. @defaultValue true */
  readonly customTables?: boolean;
  create(): Promise<SinkUnderTest>;
}
