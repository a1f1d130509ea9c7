/**
 * Kysely's view of the bookkeeping tables. Value types are loose because SQLite and Postgres
 * hand back different JS types; {@link import('./sql-flavor.js').SqlFlavor} decodes them.
 */
export interface SinkDatabase {
  sync_state: SyncStateTable;
  dead_letters: DeadLettersTable;
}

export interface SyncStateTable {
  business_id: string;
  stream: string;
  /** JSON text on insert; JSON text (SQLite) or parsed JSON (Postgres) on select. */
  position: unknown;
  records_synced: unknown;
  updated_at: unknown;
}

export interface DeadLettersTable {
  id: unknown;
  business_id: string;
  stream: string;
  reason: string;
  /** Always JSON text, so a record the target rejected as JSONB can still be kept. */
  raw: string;
  fingerprint: string;
  first_seen_at: unknown;
  last_seen_at: unknown;
  attempts: unknown;
}
