import type { Kysely } from 'kysely';
import type { Checkpoint, CheckpointStore, JsonObject } from '../../src/sink.js';
import type { SinkDatabase } from './sink-database.js';
import type { SqlFlavor } from './sql-flavor.js';

/** `sync_state` as a {@link CheckpointStore}; `write` moves checkpoints itself, inside its transaction. */
export class SqlCheckpointStore implements CheckpointStore {
  readonly #db: Kysely<SinkDatabase>;
  readonly #flavor: SqlFlavor;

  constructor(db: Kysely<SinkDatabase>, flavor: SqlFlavor) {
    this.#db = db;
    this.#flavor = flavor;
  }

  async load(businessId: string, stream: string): Promise<Checkpoint | undefined> {
    const row = await this.#db
      .selectFrom('sync_state')
      .select(['position', 'records_synced'])
      .where('business_id', '=', businessId)
      .where('stream', '=', stream)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      businessId,
      stream,
      position: this.#flavor.decodeJson(row.position) as JsonObject,
      recordsSynced: this.#flavor.decodeInteger(row.records_synced),
    };
  }

  /** Replaces the stored checkpoint, `recordsSynced` included (an operator's reset). */
  async save(checkpoint: Checkpoint): Promise<void> {
    const row = {
      business_id: checkpoint.businessId,
      stream: checkpoint.stream,
      position: JSON.stringify(checkpoint.position),
      records_synced: checkpoint.recordsSynced,
      updated_at: new Date().toISOString(),
    };
    await this.#db
      .insertInto('sync_state')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['business_id', 'stream']).doUpdateSet((eb) => ({
          position: eb.ref('excluded.position'),
          records_synced: eb.ref('excluded.records_synced'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}
