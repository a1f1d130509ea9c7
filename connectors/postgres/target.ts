import type { ColumnDefinitionBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { Json } from '../../src/sink/sink.js';
import { SqlStore, type SqlAdapter } from '../sql/index.js';
import { openPostgresDriver } from './client.js';

export { openPostgresDriver } from './client.js';
import type { PostgresSinkConfig } from './config.js';
import { postgresColumnType, postgresRawValue } from './mapping.js';

/**
 * SQLSTATE classes that blame the row: 22 data exception (U+0000 in text or JSONB, bad number
 * or timestamp), 23 integrity constraint, 54 program limit (a key too long for the index).
 */
const ROW_CLASSES = new Set(['22', '23', '54']);

interface PgError {
  readonly code?: unknown;
  readonly message: string;
  readonly detail?: unknown;
}

function isPgError(error: unknown): error is PgError {
  return error instanceof Error && typeof (error as PgError).code === 'string';
}

function decodeTimestamp(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** Postgres for one schema: JSONB `raw`, timestamptz, bigint counters, `unnest` upserts. */
export function postgresAdapter(schema: string): SqlAdapter {
  return Object.freeze({
    schema,
    maxBindParameters: 65_535,
    supportsUnnestUpsert: true,
    columnType: postgresColumnType,
    rawValue: postgresRawValue,
    jsonType: 'jsonb',
    timestampType: 'timestamptz',
    counterType: 'bigint',
    identityColumn: (column: ColumnDefinitionBuilder) => column.primaryKey().generatedAlwaysAsIdentity(),
    tableOptions: undefined,
    placeholder: (index: number) => `$${index}`,
    utcDay: (timestamp: string) => `(${timestamp} at time zone 'UTC')::date`,
    differs: (left: string, right: string) => `${left} is distinct from ${right}`,
    isRecordRejection: (error: unknown) => isPgError(error) && ROW_CLASSES.has(String(error.code).slice(0, 2)),
    // 23505 unique_violation: only the key (business_id, id) is unique in a stream table.
    isDuplicateKey: (error: unknown) => isPgError(error) && error.code === '23505',
    rejectionReason: (error: unknown) => {
      if (!isPgError(error)) return String(error);
      const detail = typeof error.detail === 'string' ? `: ${error.detail}` : '';
      return `${error.message}${detail} (SQLSTATE ${String(error.code)})`;
    },
    // pg parses JSONB itself; bigint arrives as a string, timestamptz as a Date.
    decodeJson: (value: unknown) => value as Json,
    decodeTimestamp,
    decodeInteger: (value: unknown) => Number(value),
  });
}

/** The configured schema as a SQL store: the sink itself, or a connector's `state:`. */
export function openPostgresStore(config: PostgresSinkConfig, logger: Logger): SqlStore {
  return new SqlStore(postgresAdapter(config.schema), openPostgresDriver(config, logger));
}
