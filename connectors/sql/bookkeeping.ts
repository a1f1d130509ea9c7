import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { chunks } from '../../src/base/chunks.js';
import {
  DEFAULT_DEAD_LETTER_LIMIT,
  DEFAULT_ID_PAGE,
  type Checkpoint,
  type CheckpointStore,
  type DeadLetterStore,
  type Json,
  type JsonObject,
  type StoredDeadLetter,
  type StreamTable,
} from '../../src/sink/sink.js';
import { named } from './statements.js';
import { qualifiedTable, quoteIdentifier } from './schema.js';
import type { StateStoreRecords } from '../../src/sink/parts.js';
import type { NamedStatement, SinkDatabase, SqlDriver } from './client.js';
import type { SqlAdapter } from './dialect.js';

/** The reads and operator actions of a SQL store; the write path (`target.ts`) moves checkpoints inside its transaction. */

/** Ids per `markDeleted` statement, well under every bind limit. */
const MARK_CHUNK = 500;

/** The connection and the adapter that decodes what it returns, shared by the three readers below. */
abstract class SqlReader {
  protected readonly db: Kysely<SinkDatabase>;

  constructor(
    protected readonly driver: SqlDriver,
    protected readonly adapter: SqlAdapter,
  ) {
    this.db = driver.db;
  }
}

/** The one bookkeeping read of every poll, so its text is made once. */
function checkpointLoadSql(adapter: SqlAdapter): string {
  return `select position, records_synced from ${qualifiedTable(adapter, 'sync_state')} where business_id = ${adapter.placeholder(1)} and stream = ${adapter.placeholder(2)}`;
}

export class SqlCheckpointStore extends SqlReader implements CheckpointStore {
  readonly #load = named(checkpointLoadSql(this.adapter));

  async load(businessId: string, stream: string): Promise<Checkpoint | undefined> {
    const [row] = await this.driver.select(this.#load, [businessId, stream]);
    if (row === undefined) return undefined;
    return {
      businessId,
      stream,
      position: this.adapter.decodeJson(row.position) as JsonObject,
      recordsSynced: this.adapter.decodeInteger(row.records_synced),
    };
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    const row = {
      business_id: checkpoint.businessId,
      stream: checkpoint.stream,
      position: JSON.stringify(checkpoint.position),
      records_synced: checkpoint.recordsSynced,
      updated_at: new Date().toISOString(),
    };
    const insert = this.db.insertInto('sync_state').values(row);
    if (this.adapter.upsertSyntax === 'on-duplicate-key') {
      await insert
        .onDuplicateKeyUpdate({ position: sql`values(position)`, records_synced: sql`values(records_synced)`, updated_at: sql`values(updated_at)` })
        .execute();
      return;
    }
    await insert
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

/** `dead_letters` as operators see it, oldest first. */
export class SqlDeadLetterStore extends SqlReader implements DeadLetterStore {
  /** @param filter.limit - at most this many rows; @defaultValue 100 */
  async list(filter: { businessId?: string; stream?: string; limit?: number }): Promise<StoredDeadLetter[]> {
    let query = this.db
      .selectFrom('dead_letters')
      .select(['id', 'business_id', 'stream', 'reason', 'raw', 'first_seen_at', 'attempts'])
      .orderBy('id')
      .limit(filter.limit ?? DEFAULT_DEAD_LETTER_LIMIT);
    if (filter.businessId !== undefined) query = query.where('business_id', '=', filter.businessId);
    if (filter.stream !== undefined) query = query.where('stream', '=', filter.stream);
    const rows = await query.execute();
    return rows.map((row) => ({
      id: this.adapter.decodeInteger(row.id),
      businessId: row.business_id,
      stream: row.stream,
      reason: row.reason,
      raw: JSON.parse(row.raw) as Json,
      firstSeenAt: this.adapter.decodeTimestamp(row.first_seen_at),
      attempts: this.adapter.decodeInteger(row.attempts),
    }));
  }

  async remove(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .deleteFrom('dead_letters')
      .where('id', 'in', [...ids])
      .execute();
  }
}

/** Stream tables are few and fixed by the config; the bound only guards a misuse. */
const MAX_CACHED_COUNTS = 64;
/** Businesses × tables whose counts are kept; past it they are forgotten and counted again. */
const MAX_KNOWN_COUNTS = 100_000;

/** A count, the other connections' data version and this store's write tick when it was read. */
interface KnownCount {
  readonly count: number;
  readonly dataVersion: number;
  readonly tick: number;
}

/** The rows of stream tables, for reconciliation; paged by the primary key (business_id, id). */
export class SqlStateStoreRecords extends SqlReader implements StateStoreRecords {
  /** By table name: reconciliation counts every v1 stream after every run, idle or not. */
  readonly #counts = new Map<string, NamedStatement>();
  /**
   * Counts still exact, by business and table (where the driver has a data version: SQLite):
   * counting reads every row of the business (milliseconds at 20,000 calls), and reconciliation
   * counts after every idle poll. Valid while no other connection committed (data version) and
   * this store wrote nothing to that business's table since the count began (write tick).
   */
  readonly #known = new Map<string, KnownCount>();
  readonly #lastWrite = new Map<string, number>();
  #tick = 0;
  /** The tick when {@link #lastWrite} was last emptied: a key it no longer holds may have been written up to then. */
  #forgotten = 0;

  async listIds(businessId: string, table: StreamTable, options: { after?: string; limit?: number } = {}): Promise<string[]> {
    const from = sql.raw(qualifiedTable(this.adapter, table.table));
    const after = options.after === undefined ? sql`` : sql`and id > ${options.after}`;
    const limit = options.limit ?? DEFAULT_ID_PAGE;
    const { rows } = await sql<{
      id: string;
    }>`select id from ${from} where business_id = ${businessId} and deleted_at is null ${after} order by id limit ${limit}`.execute(this.db);
    return rows.map((row) => row.id);
  }

  async count(businessId: string, table: StreamTable): Promise<number> {
    if (this.driver.dataVersion === undefined) return this.#countRows(businessId, table);
    const key = countKey(businessId, table);
    // Both read before the count: a write between them and the count only makes the count look stale.
    const tick = this.#tick;
    const dataVersion = await this.driver.dataVersion();
    const known = this.#known.get(key);
    if (known !== undefined && known.dataVersion === dataVersion && known.tick >= (this.#lastWrite.get(key) ?? this.#forgotten)) return known.count;
    const count = await this.#countRows(businessId, table);
    if (this.#known.size >= MAX_KNOWN_COUNTS) this.#known.clear();
    this.#known.set(key, { count, dataVersion, tick });
    return count;
  }

  /**
   * Called after every write of this store that may add, revive or delete the business's rows
   * (committed or not), so a count read before it is never taken for current.
   */
  wrote(businessId: string, table: StreamTable): void {
    this.#tick += 1;
    if (this.#lastWrite.size >= MAX_KNOWN_COUNTS) this.wroteAnywhere();
    this.#lastWrite.set(countKey(businessId, table), this.#tick);
  }

  /** Called after a write of this store that may change any table's rows (a schema change): no count read before it is kept. */
  wroteAnywhere(): void {
    this.#tick += 1;
    this.#lastWrite.clear();
    this.#forgotten = this.#tick;
  }

  async #countRows(businessId: string, table: StreamTable): Promise<number> {
    const rows = await this.driver.select(this.#countStatement(table.table), [businessId]);
    return this.adapter.decodeInteger(rows[0]?.n ?? 0);
  }

  #countStatement(table: string): NamedStatement {
    let statement = this.#counts.get(table);
    if (statement === undefined) {
      if (this.#counts.size >= MAX_CACHED_COUNTS) this.#counts.clear();
      const from = qualifiedTable(this.adapter, table);
      statement = named(`select count(*) as n from ${from} where business_id = ${this.adapter.placeholder(1)} and deleted_at is null`);
      this.#counts.set(table, statement);
    }
    return statement;
  }

  async deletedAmong(businessId: string, table: StreamTable, ids: readonly string[]): Promise<ReadonlySet<string>> {
    const from = sql.raw(qualifiedTable(this.adapter, table.table));
    const deleted = new Set<string>();
    for (const part of chunks(ids, MARK_CHUNK)) {
      const { rows } = await sql<{
        id: string;
      }>`select id from ${from} where business_id = ${businessId} and deleted_at is not null and id in (${sql.join(part)})`.execute(this.db);
      for (const row of rows) deleted.add(row.id);
    }
    return deleted;
  }

  async columnValues(businessId: string, table: StreamTable, column: string): Promise<string[]> {
    if (!table.columns.some((declared) => declared.name === column)) throw new Error(`table ${table.table} declares no column ${column}`);
    const from = sql.raw(qualifiedTable(this.adapter, table.table));
    const name = sql.raw(quoteIdentifier(column));
    const { rows } = await sql<{
      value: unknown;
    }>`select distinct ${name} as value from ${from} where business_id = ${businessId} and deleted_at is null and ${name} is not null`.execute(this.db);
    return rows.map((row) => String(row.value));
  }

  async markDeleted(businessId: string, table: StreamTable, ids: readonly string[]): Promise<number> {
    const from = sql.raw(qualifiedTable(this.adapter, table.table));
    const now = new Date().toISOString();
    let marked = 0;
    try {
      for (const part of chunks(ids, MARK_CHUNK)) {
        const result =
          await sql`update ${from} set deleted_at = ${now} where business_id = ${businessId} and deleted_at is null and id in (${sql.join(part)})`.execute(
            this.db,
          );
        marked += Number(result.numAffectedRows ?? 0);
      }
    } finally {
      this.wrote(businessId, table);
    }
    return marked;
  }
}

function countKey(businessId: string, table: StreamTable): string {
  return `${table.table}\u0000${businessId}`;
}
