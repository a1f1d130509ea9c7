/** One connection inside an open transaction, as the shared write path uses it. */
export interface SqlExecutor {
  /**
   * Runs one statement and resolves with the number of rows it inserted or changed. A `name`
   * lets the target keep it prepared on the connection (always the same `sql` for one name).
   */
  run(sql: string, parameters: readonly unknown[], name?: string): Promise<number>;
}

/**
 * Runs `body` between SAVEPOINT and RELEASE; on failure rolls back to the savepoint, so the
 * transaction stays usable (Postgres aborts the whole transaction on any failed statement otherwise).
 */
export async function inSavepoint<T>(executor: SqlExecutor, name: string, body: () => Promise<T>): Promise<T> {
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
