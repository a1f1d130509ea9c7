import { CompiledQuery } from 'kysely';
import type { Kysely } from 'kysely';
import type { SinkDatabase } from '../sql/sink-database.js';
import type { SqlExecutor } from '../sql/sql-executor.js';
import type { SqlFlavor } from '../sql/sql-flavor.js';
import type { SqlBackend } from '../sql/sql-sink.js';

/** Writes run in a kysely transaction on one pooled connection; statements are parameterised, never interpolated. */
export class PostgresBackend implements SqlBackend {
  readonly db: Kysely<SinkDatabase>;
  readonly flavor: SqlFlavor;

  constructor(db: Kysely<SinkDatabase>, flavor: SqlFlavor) {
    this.db = db;
    this.flavor = flavor;
  }

  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) =>
      body({
        run: async (sql, parameters) => {
          const result = await trx.executeQuery(CompiledQuery.raw(sql, [...parameters]));
          return Number(result.numAffectedRows ?? 0n);
        },
      }),
    );
  }

  destroy(): Promise<void> {
    return this.db.destroy();
  }
}
