import { createHash } from 'node:crypto';
import type { Batch, DeadLetter, JsonObject, WriteResult } from '../../src/sink.js';
import { jsonText } from '../json-text.js';
import type { TargetCounts } from '../parts.js';
import type { SqlAdapter, SqlExecutor } from './sql-dialect.js';
import type { StatementCache } from './statements.js';

/**
 * How records are upserted. `bulk`: as few statements as possible and no savepoint, so a refused
 * row fails the whole transaction; the caller then rolls back and redoes the batch `per-row`,
 * each row in its own savepoint so only the refused rows become dead letters.
 */
export type WriteMode = 'bulk' | 'per-row';

/** What one commit needs besides the open transaction. */
export interface CommitInput {
  readonly batch: Batch;
  readonly position: JsonObject;
  /** The target's own counts (a webhook receiver's); without them the rows changed here count. */
  readonly counts: TargetCounts | undefined;
  readonly now: string;
}

/**
 * The whole commit of one batch, run by the caller inside one transaction: records, then dead
 * letters, then the checkpoint with `written` added to `records_synced`. In `bulk` mode any
 * failure propagates; in `per-row` mode a row the database refuses becomes a dead letter.
 */
export async function writeBatch(
  executor: SqlExecutor,
  adapter: SqlAdapter,
  statements: StatementCache,
  input: CommitInput,
  mode: WriteMode,
): Promise<WriteResult> {
  const { batch, now } = input;
  const { table, records } = batch;
  let changed = 0;
  const refused: DeadLetter[] = [];
  if (mode === 'bulk') {
    const chunkSize = statements.rowsPerStatement(table);
    for (let start = 0; start < records.length; start += chunkSize) {
      changed += await statements.runUpsert(executor, table, records.slice(start, start + chunkSize), now);
    }
  } else {
    for (const record of records) {
      try {
        changed += await inSavepoint(executor, 'one_row', () => statements.runUpsert(executor, table, [record], now));
      } catch (rowError) {
        if (!adapter.isRecordRejection(rowError)) throw rowError;
        refused.push({ businessId: record.businessId, stream: table.stream, reason: adapter.rejectionReason(rowError), raw: record.raw });
      }
    }
  }
  for (const letter of [...batch.deadLetters, ...refused]) {
    await executor.run(statements.deadLetter.text, deadLetterParameters(letter, now), statements.deadLetter.name);
  }
  const stored = records.length - refused.length;
  const written = input.counts?.written ?? changed;
  const unchanged = input.counts?.unchanged ?? stored - changed;
  const { text, name } = statements.checkpointAdvance;
  await executor.run(text, [batch.businessId, table.stream, JSON.stringify(input.position), written, now], name);
  return { written, unchanged, deadLettered: batch.deadLetters.length + refused.length };
}

/**
 * Runs `body` between SAVEPOINT and RELEASE; on failure rolls back to the savepoint, so the
 * transaction stays usable (Postgres aborts the whole transaction on any failed statement otherwise).
 */
async function inSavepoint<T>(executor: SqlExecutor, name: string, body: () => Promise<T>): Promise<T> {
  await executor.run(`savepoint ${name}`, []);
  try {
    const result = await body();
    await executor.run(`release savepoint ${name}`, []);
    return result;
  } catch (error) {
    await executor.run(`rollback to savepoint ${name}`, []);
    await executor.run(`release savepoint ${name}`, []);
    throw error;
  }
}

function deadLetterParameters(letter: DeadLetter, now: string): unknown[] {
  const raw = jsonText(letter.raw);
  // The same bad record of the same business and stream gets the same fingerprint, so a repeat bumps `attempts`.
  const fingerprint = createHash('sha256').update(`[${JSON.stringify(letter.businessId)},${JSON.stringify(letter.stream)},${raw}]`).digest('hex');
  // Postgres text cannot hold U+0000; the reason may quote the very value that was refused.
  const reason = letter.reason.replaceAll('\u0000', '\\u0000');
  return [letter.businessId, letter.stream, reason, raw, fingerprint, now, now];
}
