import type { StreamTable } from '../../src/sink.js';
import { quoteIdentifier } from './identifiers.js';
import type { SqlFlavor } from './sql-flavor.js';

/** `"schema"."table"` in Postgres, `"table"` in SQLite. */
export function qualifiedTable(flavor: SqlFlavor, table: string): string {
  return flavor.schema === undefined ? quoteIdentifier(table) : `${quoteIdentifier(flavor.schema)}.${quoteIdentifier(table)}`;
}

/** Column order of a record row, matching the parameters `recordParameters` produces. */
export function recordColumns(table: StreamTable): string[] {
  return ['business_id', 'id', 'source', ...table.columns.map((column) => column.name), 'raw', 'synced_at'];
}

function valuesList(flavor: SqlFlavor, rows: number, width: number): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const slots: string[] = [];
    for (let column = 1; column <= width; column++) slots.push(flavor.placeholder(row * width + column));
    tuples.push(`(${slots.join(', ')})`);
  }
  return tuples.join(', ');
}

/**
 * Multi-row upsert by (business_id, id). The update only fires when the row differs, so a replay
 * leaves `synced_at` alone and the statement's change count is exactly the rows inserted or changed.
 */
export function recordUpsertSql(flavor: SqlFlavor, table: StreamTable, rows: number): string {
  const columns = recordColumns(table);
  const updated = columns.filter((column) => column !== 'business_id' && column !== 'id');
  const compared = updated.filter((column) => column !== 'synced_at');
  const set = updated.map((column) => `${quoteIdentifier(column)} = excluded.${quoteIdentifier(column)}`).join(', ');
  const differs = compared.map((column) => flavor.differs(`t.${quoteIdentifier(column)}`, `excluded.${quoteIdentifier(column)}`));
  return (
    `insert into ${qualifiedTable(flavor, table.table)} as t (${columns.map(quoteIdentifier).join(', ')}) ` +
    `values ${valuesList(flavor, rows, columns.length)} ` +
    `on conflict (business_id, id) do update set ${set} where ${differs.join(' or ')}`
  );
}

/**
 * Postgres upsert of any number of rows from one array parameter per column, so the text (and
 * the server's plan) is the same for every batch of the table and the bind count stays fixed.
 * Same conflict rule and change count as {@link recordUpsertSql}.
 */
export function recordUnnestUpsertSql(flavor: SqlFlavor, table: StreamTable): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const types = ['text', 'text', 'text', ...table.columns.map((column) => flavor.columnType(column.type)), flavor.jsonType, flavor.timestampType];
  const arrays = types.map((type, index) => `${flavor.placeholder(index + 1)}::${type}[]`);
  const updated = columns.slice(2);
  const compared = updated.slice(0, -1);
  const set = updated.map((column) => `${column} = excluded.${column}`).join(', ');
  const row = (prefix: string) => `(${compared.map((column) => `${prefix}.${column}`).join(', ')})`;
  return (
    `insert into ${qualifiedTable(flavor, table.table)} as t (${columns.join(', ')}) ` +
    `select * from unnest(${arrays.join(', ')}) as u(${columns.join(', ')}) ` +
    `on conflict (business_id, id) do update set ${set} where ${flavor.differs(row('t'), row('excluded'))}`
  );
}

/** Upsert of one dead letter: seen again, it bumps `attempts` and `last_seen_at` instead of adding a row. */
export function deadLetterUpsertSql(flavor: SqlFlavor): string {
  return (
    `insert into ${qualifiedTable(flavor, 'dead_letters')} as t ` +
    `(business_id, stream, reason, raw, fingerprint, first_seen_at, last_seen_at, attempts) ` +
    `values (${valuesList(flavor, 1, 7).slice(1, -1)}, 1) ` +
    `on conflict (business_id, stream, fingerprint) do update set ` +
    `reason = excluded.reason, last_seen_at = excluded.last_seen_at, attempts = t.attempts + 1`
  );
}

/** Moves a checkpoint; `records_synced` grows by the parameter (`add`) or is replaced by it (`set`). */
export function checkpointUpsertSql(flavor: SqlFlavor, counter: 'add' | 'set'): string {
  const records = counter === 'add' ? 't.records_synced + excluded.records_synced' : 'excluded.records_synced';
  return (
    `insert into ${qualifiedTable(flavor, 'sync_state')} as t (business_id, stream, position, records_synced, updated_at) ` +
    `values (${valuesList(flavor, 1, 5).slice(1, -1)}) ` +
    `on conflict (business_id, stream) do update set ` +
    `position = excluded.position, records_synced = ${records}, updated_at = excluded.updated_at`
  );
}
