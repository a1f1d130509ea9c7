import { createHash } from 'node:crypto';
import type { Batch, Checkpoint, DeadLetter, StreamTable, SyncRecord, WriteResult } from '../../src/sink.js';
import { deadLetterFingerprint } from './fingerprint.js';
import { inSavepoint } from './sql-executor.js';
import type { SqlExecutor } from './sql-executor.js';
import type { SqlFlavor } from './sql-flavor.js';
import { checkpointUpsertSql, deadLetterUpsertSql, recordColumns, recordUnnestUpsertSql, recordUpsertSql } from './statements.js';

/**
 * How records are upserted. `bulk`: as few statements as possible and no savepoint, so a refused
 * row fails the whole transaction; the caller then rolls back and redoes the batch `per-row`,
 * each row in its own savepoint so only the refused rows become dead letters.
 */
export type WriteMode = 'bulk' | 'per-row';

/**
 * The whole write of one batch, run by the caller inside one transaction: records, then dead
 * letters, then the checkpoint. In `bulk` mode any failure propagates; in `per-row` mode a row
 * the target refuses becomes a dead letter and the rest still commits.
 */
export async function writeBatch(
  executor: SqlExecutor,
  flavor: SqlFlavor,
  statements: StatementCache,
  batch: Batch,
  checkpoint: Checkpoint,
  now: string,
  mode: WriteMode,
): Promise<WriteResult> {
  const { table } = batch;
  const { records } = batch;
  let written = 0;
  const rejected: DeadLetter[] = [];
  if (mode === 'bulk') {
    const chunkSize = statements.rowsPerStatement(table);
    for (let start = 0; start < records.length; start += chunkSize) {
      written += await statements.runUpsert(executor, table, records.slice(start, start + chunkSize), now);
    }
  } else {
    for (const record of records) {
      try {
        written += await inSavepoint(executor, 'one_row', () => statements.runUpsert(executor, table, [record], now));
      } catch (rowError) {
        if (!flavor.isRecordRejection(rowError)) throw rowError;
        rejected.push({ businessId: record.businessId, stream: table.stream, reason: flavor.rejectionReason(rowError), raw: record.raw });
      }
    }
  }
  for (const letter of [...batch.deadLetters, ...rejected]) {
    await executor.run(statements.deadLetter.text, deadLetterParameters(letter, now), statements.deadLetter.name);
  }
  const position = JSON.stringify(checkpoint.position);
  const { text, name } = statements.checkpointAdd;
  await executor.run(text, [checkpoint.businessId, checkpoint.stream, position, written, now], name);
  return {
    written,
    unchanged: batch.records.length - written - rejected.length,
    deadLettered: batch.deadLetters.length + rejected.length,
  };
}


/** Row after row, matching a VALUES list. */
function rowParameters(table: StreamTable, records: readonly SyncRecord[], now: string): unknown[] {
  const parameters: unknown[] = [];
  for (const record of records) {
    parameters.push(record.businessId, record.id, record.source);
    for (const column of table.columns) parameters.push(record.fields[column.name] ?? null);
    parameters.push(JSON.stringify(record.raw), now);
  }
  return parameters;
}

/** One array per column, matching `unnest`. */
function columnParameters(table: StreamTable, records: readonly SyncRecord[], now: string): unknown[][] {
  const fields = table.columns.map((column) => records.map((record) => record.fields[column.name] ?? null));
  return [
    records.map((record) => record.businessId),
    records.map((record) => record.id),
    records.map((record) => record.source),
    ...fields,
    records.map((record) => JSON.stringify(record.raw)),
    records.map(() => now),
  ];
}

function deadLetterParameters(letter: DeadLetter, now: string): unknown[] {
  const fingerprint = deadLetterFingerprint(letter.businessId, letter.stream, letter.raw);
  // Postgres text cannot hold U+0000; the reason may quote the very value that was refused.
  const reason = letter.reason.replaceAll('\u0000', '\\u0000');
  return [letter.businessId, letter.stream, reason, JSON.stringify(letter.raw), fingerprint, now, now];
}

/** SQL text and its prepared-statement name. */
export interface NamedStatement {
  readonly text: string;
  /** Derived from the text, so one name never stands for two texts on a connection. */
  readonly name: string;
}

function named(text: string): NamedStatement {
  return { text, name: `callsync_${createHash('sha256').update(text).digest('hex').slice(0, 32)}` };
}

/** SQL text built once per table (and, for VALUES lists, row count); building a 500-row VALUES list per batch is measurable. */
export class StatementCache {
  readonly deadLetter: NamedStatement;
  readonly checkpointAdd: NamedStatement;
  readonly #flavor: SqlFlavor;
  readonly #upserts = new Map<string, NamedStatement>();

  constructor(flavor: SqlFlavor) {
    this.#flavor = flavor;
    this.deadLetter = named(deadLetterUpsertSql(flavor));
    this.checkpointAdd = named(checkpointUpsertSql(flavor, 'add'));
  }

  /** Records one upsert statement takes: unbounded with `unnest`, else under the bind-parameter limit. */
  rowsPerStatement(table: StreamTable): number {
    if (this.#flavor.dialect === 'postgres') return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(this.#flavor.maxBindParameters / recordColumns(table).length));
  }

  /** Upserts `records` in one statement; resolves with the rows inserted or changed. */
  runUpsert(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string): Promise<number> {
    if (this.#flavor.dialect === 'postgres') {
      const { text, name } = this.#upsert(table, 0);
      return executor.run(text, columnParameters(table, records, now), name);
    }
    const { text, name } = this.#upsert(table, records.length);
    return executor.run(text, rowParameters(table, records, now), name);
  }

  #upsert(table: StreamTable, rows: number): NamedStatement {
    const key = `${table.table}/${table.columns.map((column) => `${column.name}:${column.type}`).join(',')}/${String(rows)}`;
    let statement = this.#upserts.get(key);
    if (statement === undefined) {
      // Page sizes vary little; the bound only matters for a long-lived worker with odd tail sizes.
      if (this.#upserts.size >= 256) this.#upserts.clear();
      const text = rows === 0 ? recordUnnestUpsertSql(this.#flavor, table) : recordUpsertSql(this.#flavor, table, rows);
      statement = named(text);
      this.#upserts.set(key, statement);
    }
    return statement;
  }
}
