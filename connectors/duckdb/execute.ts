import { DuckDBPendingResultState, type DuckDBConnection, type DuckDBPendingResult, type DuckDBPreparedStatement, type DuckDBResult } from '@duckdb/node-api';

/**
 * Runs a prepared statement's work on the calling (main) thread, then takes its result.
 *
 * `@duckdb/node-api` runs every `run()` on a thread of Node's pool, whichever is free, and the C
 * library gives each of those threads an allocation arena of its own that keeps the high-water mark
 * of what DuckDB allocated on it: up to four arenas, 20–30 MB of the sink's RSS in a backfill
 * (`UV_THREADPOOL_SIZE=1` in the environment, one arena, took that off; a process cannot set it for
 * itself once its modules are loaded). With `threads = 1` DuckDB has no threads of its own, so each
 * pending task is the statement's work itself: run here, it all lands in the main thread's arena.
 * The event loop waits for it, as it waits for the appender, which is synchronous already. Only
 * taking the result (`getResult()`: a row count; `readAll()`: a small read) goes through the pool.
 */
export function runHere(statement: DuckDBPreparedStatement): DuckDBPendingResult {
  const pending = statement.start();
  try {
    while (pending.runTask() === DuckDBPendingResultState.RESULT_NOT_READY);
  } catch (error) {
    throw withoutTaskPrefix(error);
  }
  return pending;
}

/** What `runTask` puts before DuckDB's message; without it the error reads as `run()`'s does (`Constraint Error: …`). */
const TASK_FAILURE = 'Failure running pending result task: ';

function withoutTaskPrefix(error: unknown): unknown {
  if (!(error instanceof Error) || !error.message.startsWith(TASK_FAILURE)) return error;
  return new Error(error.message.slice(TASK_FAILURE.length), { cause: error });
}

/** {@link runHere} for SQL without parameters: prepared (on the pool: parsing and planning allocate little), run, and dropped. */
export async function runSqlHere(connection: DuckDBConnection, sql: string): Promise<DuckDBResult> {
  const statement = await connection.prepare(sql);
  try {
    return await runHere(statement).getResult();
  } finally {
    statement.destroySync();
  }
}
