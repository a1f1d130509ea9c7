import type { DeadLetter, JsonObject, StreamTable, SyncRecord, WriteResult } from '../../src/sink/sink.js';
import type { StateStore, StoreBatch, TargetCounts } from '../../src/sink/parts.js';
import { ClickHouseCheckpoints, ClickHouseDeadLetters, ClickHouseRecords, IDS_PER_STATEMENT, type StoreContext } from './bookkeeping.js';
import { ClickHouseConnection } from './client.js';
import type { ClickHouseSinkConfig } from './config.js';
import {
  literalParts,
  nowDateTime,
  qualified,
  quoteName,
  quoteString,
  recordRow,
  sameContent,
  stringList,
  unstorableField,
  type StoredContent,
} from './mapping.js';
import { NewIds } from './new-ids.js';
import { migrate, prepareStreamTables } from './schema.js';
import { VersionClock } from './versions.js';

/**
 * ClickHouse as the whole sink: its stream tables are the target and its `sync_state` and
 * `dead_letters` the bookkeeping. ClickHouse has no transactions, so a write is ordered instead:
 * the rows' insert, then the dead letters', then the checkpoint's, each sent only after the one
 * before it was acknowledged. A crash in between leaves rows ahead of the checkpoint; the rerun
 * writes that batch again, and the versioned rows converge (README: "Exactness").
 */
export class ClickHouseStore implements StateStore {
  readonly checkpoints: ClickHouseCheckpoints;
  readonly deadLetters: ClickHouseDeadLetters;
  readonly records: ClickHouseRecords;
  readonly #context: StoreContext;

  constructor(connection: ClickHouseConnection, database: string, now: () => number = Date.now) {
    this.#context = { connection, database, clock: new VersionClock(now), now, newIds: new NewIds() };
    this.checkpoints = new ClickHouseCheckpoints(this.#context);
    this.deadLetters = new ClickHouseDeadLetters(this.#context);
    this.records = new ClickHouseRecords(this.#context);
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    const { connection, database } = this.#context;
    await migrate(connection, database);
    await prepareStreamTables(connection, database, tables);
  }

  /**
   * Writes the rows that are new or changed (a stored row with the same content is left alone, so
   * a replay inserts nothing), then the dead letters, then the checkpoint with `written` added to
   * `records_synced`. A write that changes nothing and leaves the position where it was inserts
   * nothing at all: ClickHouse makes a part of every insert. Its inserts cannot be rolled back, so
   * a `targetDurable` is waited for before any (no ClickHouse sink has a target today).
   */
  async commit(batch: StoreBatch, position: JsonObject, counts?: TargetCounts, targetDurable?: Promise<void>): Promise<WriteResult> {
    await targetDurable;
    const { table, businessId } = batch;
    const positionText = JSON.stringify(position);
    // Read first (when this store does not know it yet): a read of the checkpoint starts what is known of the stream afresh.
    const stored = await this.checkpoints.latest(businessId, table.stream);
    const refused: DeadLetter[] = [];
    const candidates: { record: SyncRecord; rawText: string }[] = [];
    batch.records.forEach((record, index) => {
      const reason = unstorableField(table, record);
      if (reason !== undefined) refused.push({ businessId, stream: table.stream, reason, raw: record.raw });
      else candidates.push({ record, rawText: batch.rawTexts?.[index] ?? JSON.stringify(record.raw) });
    });
    const { changed, top } = await this.#changed(table, businessId, candidates, stored.checkpoint !== undefined);
    if (changed.length > 0) {
      const { connection, database, clock, now } = this.#context;
      const version = clock.next(top);
      const syncedAt = nowDateTime(now());
      await connection.insert(
        qualified(database, table.table),
        changed.map(({ record, rawText }) => recordRow(table, record, rawText, version, syncedAt)),
      );
    }
    const letters = [...batch.deadLetters, ...refused];
    await this.deadLetters.record(businessId, table.stream, letters);
    const written = counts?.written ?? changed.length;
    const unchanged = counts?.unchanged ?? candidates.length - changed.length;
    const moved = stored.checkpoint === undefined || JSON.stringify(stored.checkpoint.position) !== positionText;
    if (moved || written > 0 || letters.length > 0) {
      await this.checkpoints.write(businessId, table.stream, positionText, (stored.checkpoint?.recordsSynced ?? 0) + written, stored.version);
    }
    return { written, unchanged, deadLettered: letters.length };
  }

  /**
   * The records whose stored row is missing, deleted or different, and the highest version stored
   * for the batch's ids. Only ids that may be stored are read ({@link NewIds}); the rest are new.
   * The ids about to be written are added before the insert is sent: an insert that fails after the
   * server took it leaves them stored.
   */
  async #changed(table: StreamTable, businessId: string, candidates: readonly { record: SyncRecord; rawText: string }[], synced: boolean) {
    const hashes = await this.#newIds(table, businessId, synced);
    const maybeStored = hashes === null ? candidates : candidates.filter(({ record }) => hashes.has(record.id));
    const stored = await this.#stored(table, businessId, maybeStored);
    let top = 0;
    for (const row of stored.values()) top = Math.max(top, Number(row.version));
    const changed = candidates.filter(({ record, rawText }) => {
      const row = stored.get(record.id);
      return row === undefined || !sameContent(table, row, record, rawText);
    });
    if (hashes !== null) {
      for (const { record } of changed) hashes.add(record.id);
      this.#context.newIds.wrote(businessId, table.stream, hashes);
    }
    return { changed, top };
  }

  /**
   * The stream's written ids when its table held no row of the business at first, else null (every
   * id is read). Asked once per run, and only of a stream without a checkpoint yet: one that has
   * one was synced before (an incremental run, a rerun), and an idle poll's run pays no query for it.
   */
  async #newIds(table: StreamTable, businessId: string, synced: boolean) {
    const { connection, database, newIds } = this.#context;
    const known = newIds.known(businessId, table.stream);
    if (known !== undefined) return known;
    if (synced) return newIds.found(businessId, table.stream, false);
    const [any] = await connection.select<{ n: string }>(
      `SELECT count() AS n FROM (SELECT 1 FROM ${qualified(database, table.table)} WHERE business_id = ${quoteString(businessId)} LIMIT 1)`,
    );
    return newIds.found(businessId, table.stream, Number(any?.n ?? 0) === 0);
  }

  /** The current rows of those of the records that are stored. */
  async #stored(table: StreamTable, businessId: string, candidates: readonly { record: SyncRecord }[]): Promise<Map<string, StoredContent>> {
    const stored = new Map<string, StoredContent>();
    const columns = ['id', 'source', ...table.columns.map((column) => quoteName(column.name)), 'raw', 'deleted_at IS NOT NULL AS deleted', 'version'].join(
      ', ',
    );
    const { connection, database } = this.#context;
    const target = qualified(database, table.table);
    const business = `business_id = ${quoteString(businessId)}`;
    for (const part of literalParts(candidates, ({ record }) => record.id, IDS_PER_STATEMENT)) {
      // The key columns alone first: a page of new records (a backfill) costs a read of two narrow
      // columns, where the content read would go through every column of the granules it touches.
      const present = await connection.select<{ id: string }>(
        `SELECT DISTINCT id FROM ${target} WHERE ${business} AND id IN ${stringList(part.map(({ record }) => record.id))}`,
      );
      if (present.length === 0) continue;
      const rows = await connection.select<StoredContent>(
        `SELECT ${columns} FROM ${target} FINAL WHERE ${business} AND id IN ${stringList(present.map((row) => row.id))}`,
      );
      for (const row of rows) stored.set(row.id, row);
    }
    return stored;
  }

  async ping(): Promise<void> {
    // `/ping` answers without credentials; a query proves the user and password too.
    await this.#context.connection.select('SELECT 1');
  }

  close(): Promise<void> {
    return this.#context.connection.close();
  }
}

/** The configured database as the sink's store; the driver loads with this module, on the first open. */
export function openClickHouseStore(config: ClickHouseSinkConfig): ClickHouseStore {
  return new ClickHouseStore(new ClickHouseConnection(config), config.database);
}
