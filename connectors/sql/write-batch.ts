import type { Batch, Checkpoint, DeadLetter, StreamTable, SyncRecord, WriteResult } from '../../src/sink.js';
import { deadLetterFingerprint } from './fingerprint.js';
import { inSavepoint } from './sql-executor.js';
import type { SqlExecutor } from './sql-executor.js';
import type { SqlFlavor } from './sql-flavor.js';
import { checkpointUpsertSql, deadLetterUpsertSql, recordColumns, recordUpsertSql } from './statements.js';

/**
 * The whole write of one batch, run by the caller inside one transaction: records upserted in
 * chunks below the bind-parameter limit, then dead letters, then the checkpoint. A chunk the
 * target refuses is retried row by row so only the refused rows become dead letters; any other
 * failure (connection, schema, a refused checkpoint) propagates and the caller rolls back.
 */
export async function writeBatch(
  executor: SqlExecutor,
  flavor: SqlFlavor,
  statements: StatementCache,
  batch: Batch,
  checkpoint: Checkpoint,
  now: string,
): Promise<WriteResult> {
  const { table } = batch;
  const records = lastPerId(batch.records);
  const width = recordColumns(table).length;
  const chunkSize = Math.max(1, Math.floor(flavor.maxBindParameters / width));
  let written = 0;
  const rejected: DeadLetter[] = [];
  for (let start = 0; start < records.length; start += chunkSize) {
    const chunk = records.slice(start, start + chunkSize);
    try {
      const sql = statements.upsert(table, chunk.length);
      written += await inSavepoint(executor, 'chunk', () => executor.run(sql, recordParameters(table, chunk, now)));
    } catch (error) {
      if (!flavor.isRecordRejection(error)) throw error;
      for (const record of chunk) {
        try {
          const sql = statements.upsert(table, 1);
          written += await inSavepoint(executor, 'one_row', () => executor.run(sql, recordParameters(table, [record], now)));
        } catch (rowError) {
          if (!flavor.isRecordRejection(rowError)) throw rowError;
          rejected.push({ businessId: record.businessId, stream: table.stream, reason: flavor.rejectionReason(rowError), raw: record.raw });
        }
      }
    }
  }
  for (const letter of [...batch.deadLetters, ...rejected]) {
    await executor.run(statements.deadLetter, deadLetterParameters(letter, now));
  }
  const position = JSON.stringify(checkpoint.position);
  await executor.run(statements.checkpointAdd, [checkpoint.businessId, checkpoint.stream, position, written, now]);
  return {
    written,
    unchanged: batch.records.length - written - rejected.length,
    deadLettered: batch.deadLetters.length + rejected.length,
  };
}

/** Postgres refuses one statement touching a key twice; the later record of a page wins. */
function lastPerId(records: readonly SyncRecord[]): SyncRecord[] {
  const byId = new Map<string, SyncRecord>();
  for (const record of records) {
    byId.delete(record.id);
    byId.set(record.id, record);
  }
  return [...byId.values()];
}

function recordParameters(table: StreamTable, records: readonly SyncRecord[], now: string): unknown[] {
  const parameters: unknown[] = [];
  for (const record of records) {
    parameters.push(record.businessId, record.id, record.source);
    for (const column of table.columns) parameters.push(record.fields[column.name] ?? null);
    parameters.push(JSON.stringify(record.raw), now);
  }
  return parameters;
}

function deadLetterParameters(letter: DeadLetter, now: string): unknown[] {
  const fingerprint = deadLetterFingerprint(letter.businessId, letter.stream, letter.raw);
  // Postgres text cannot hold U+0000; the reason may quote the very value that was refused.
  const reason = letter.reason.replaceAll('\u0000', '\\u0000');
  return [letter.businessId, letter.stream, reason, JSON.stringify(letter.raw), fingerprint, now, now];
}

/** SQL text built once per table and row count; building a 500-row VALUES list per batch is measurable. */
export class StatementCache {
  readonly deadLetter: string;
  readonly checkpointAdd: string;
  readonly #flavor: SqlFlavor;
  readonly #upserts = new Map<string, string>();

  constructor(flavor: SqlFlavor) {
    this.#flavor = flavor;
    this.deadLetter = deadLetterUpsertSql(flavor);
    this.checkpointAdd = checkpointUpsertSql(flavor, 'add');
  }

  upsert(table: StreamTable, rows: number): string {
    const key = `${table.table}/${table.columns.map((column) => column.name).join(',')}/${rows}`;
    let sql = this.#upserts.get(key);
    if (sql === undefined) {
      // Page sizes vary little; the bound only matters for a long-lived worker with odd tail sizes.
      if (this.#upserts.size >= 256) this.#upserts.clear();
      sql = recordUpsertSql(this.#flavor, table, rows);
      this.#upserts.set(key, sql);
    }
    return sql;
  }
}
