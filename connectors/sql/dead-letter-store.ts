import type { Kysely } from 'kysely';
import type { DeadLetterStore, Json, StoredDeadLetter } from '../../src/sink.js';
import type { SinkDatabase } from './sink-database.js';
import type { SqlFlavor } from './sql-flavor.js';

/** Default page of {@link SqlDeadLetterStore.list}. */
export const DEFAULT_DEAD_LETTER_LIMIT = 100;

/** `dead_letters` as operators see it, oldest first. */
export class SqlDeadLetterStore implements DeadLetterStore {
  readonly #db: Kysely<SinkDatabase>;
  readonly #flavor: SqlFlavor;

  constructor(db: Kysely<SinkDatabase>, flavor: SqlFlavor) {
    this.#db = db;
    this.#flavor = flavor;
  }

  /** @param filter.limit - at most this many rows; @defaultValue 100 */
  async list(filter: { businessId?: string; stream?: string; limit?: number }): Promise<StoredDeadLetter[]> {
    let query = this.#db
      .selectFrom('dead_letters')
      .select(['id', 'business_id', 'stream', 'reason', 'raw', 'first_seen_at', 'attempts'])
      .orderBy('id')
      .limit(filter.limit ?? DEFAULT_DEAD_LETTER_LIMIT);
    if (filter.businessId !== undefined) query = query.where('business_id', '=', filter.businessId);
    if (filter.stream !== undefined) query = query.where('stream', '=', filter.stream);
    const rows = await query.execute();
    return rows.map((row) => ({
      id: this.#flavor.decodeInteger(row.id),
      businessId: row.business_id,
      stream: row.stream,
      reason: row.reason,
      raw: JSON.parse(row.raw) as Json,
      firstSeenAt: this.#flavor.decodeTimestamp(row.first_seen_at),
      attempts: this.#flavor.decodeInteger(row.attempts),
    }));
  }

  async remove(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db.deleteFrom('dead_letters').where('id', 'in', [...ids]).execute();
  }
}
