/**
 * The SQL store every SQL dialect shares, and the interfaces a dialect folder implements: an
 * adapter (`dialect.ts`), a driver (`client.ts`) and the opener that pairs them (`SqlDialect`).
 * This folder never imports a dialect; each dialect imports it and opens itself.
 */
export type { InsertTarget, NamedStatement, SinkDatabase, SqlDriver, SqlExecutor, StagingTable } from './client.js';
export type { RawConversion, SqlAdapter, SqlDialect } from './dialect.js';
export { IDENTIFIER_PATTERN } from './schema.js';
export { SqlStore } from './target.js';
