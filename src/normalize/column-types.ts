/** The shape of a normalized record's columns: what normalize produces and every sink stores. */

/** A normalized column value; timestamps are ISO 8601 UTC strings (`YYYY-MM-DDTHH:MM:SSZ`). */
export type ColumnValue = string | number | null;

/**
 * Column types a stream table may declare; each SQL dialect maps them to its own types. A
 * `boolean` value is 1 or 0 (SQLite has no boolean; Postgres stores `boolean`).
 */
export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'timestamp';

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  /**
   * A column declared in the config (`columns:`): the dotted path into `raw` it is read from.
   * A SQL sink fills such a column from the stored `raw` when it adds it to an existing table.
   */
  readonly from?: readonly string[];
}
