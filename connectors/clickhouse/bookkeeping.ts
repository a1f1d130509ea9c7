import { createHash } from 'node:crypto';
import { chunks } from '../../src/base/chunks.js';
import { jsonText } from '../../src/sink/json-text.js';
import {
  DEFAULT_DEAD_LETTER_LIMIT,
  DEFAULT_ID_PAGE,
  type Checkpoint,
  type CheckpointStore,
  type DeadLetter,
  type DeadLetterStore,
  type Json,
  type JsonObject,
  type StoredDeadLetter,
  type StreamTable,
} from '../../src/sink/sink.js';
import type { StateStoreRecords } from '../../src/sink/parts.js';
import type { ClickHouseConnection } from './client.js';
import { fromDateTime, literalParts, nowDateTime, qualified, quoteName, quoteString, stringList } from './mapping.js';
import type { NewIds } from './new-ids.js';
import { SYNC_STATE_BUFFER } from './schema.js';
import type { VersionClock } from './versions.js';

/**
 * The reads and operator actions of the ClickHouse store, each on the current rows (`FINAL`: the
 * newest version per key); every change is a new version, never an UPDATE or DELETE.
 */

/** Ids per statement: the literal list stays far under the server's query size (256 KiB). */
export const IDS_PER_STATEMENT = 500;

/** What every reader shares: the connection, the database, the version clock and which ids are certainly new. */
export interface StoreContext {
  readonly connection: ClickHouseConnection;
  readonly database: string;
  readonly clock: VersionClock;
  readonly now: () => number;
  readonly newIds: NewIds;
}

/** The stored checkpoint and the version of its row (0 when none). */
interface StoredCheckpoint {
  readonly checkpoint: Checkpoint | undefined;
  readonly version: number;
}

/**
 * `sync_state` through its Buffer (`sync_state_buffer`): checkpoints are inserted there and read
 * from there, the newest version of a key first (a Buffer does not apply `FINAL` to the rows it
 * holds). What was read or written last per business × stream is kept, so a commit neither reads
 * the checkpoint nor waits for a part to be made: one writer holds a stream (the sink's lease), and
 * every run of a stream starts with `load`, which reads it again (a checkpoint another process
 * wrote while it held the lease is seen then).
 */
export class ClickHouseCheckpoints implements CheckpointStore {
  readonly #context: StoreContext;
  readonly #table: string;
  readonly #known = new Map<string, StoredCheckpoint>();

  constructor(context: StoreContext) {
    this.#context = context;
    this.#table = qualified(context.database, SYNC_STATE_BUFFER);
  }

  /** The stored checkpoint, read from the server (and remembered). */
  async current(businessId: string, stream: string): Promise<StoredCheckpoint> {
    const [row] = await this.#context.connection.select<{ position: string; records_synced: string; version: string }>(
      `SELECT position, records_synced, version FROM ${this.#table} WHERE business_id = ${quoteString(businessId)} AND stream = ${quoteString(stream)} ` +
        'ORDER BY version DESC LIMIT 1',
    );
    const stored: StoredCheckpoint =
      row === undefined
        ? { checkpoint: undefined, version: 0 }
        : {
            checkpoint: { businessId, stream, position: JSON.parse(row.position) as JsonObject, recordsSynced: Number(row.records_synced) },
            version: Number(row.version),
          };
    this.#known.set(streamKey(businessId, stream), stored);
    // A run of the stream starts here: what another process wrote since is found by reading again.
    this.#context.newIds.forget(businessId, stream);
    return stored;
  }

  /** What this store last read or wrote for the stream, else read from the server. */
  async latest(businessId: string, stream: string): Promise<StoredCheckpoint> {
    return this.#known.get(streamKey(businessId, stream)) ?? this.current(businessId, stream);
  }

  async load(businessId: string, stream: string): Promise<Checkpoint | undefined> {
    return (await this.current(businessId, stream)).checkpoint;
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    const { version } = await this.current(checkpoint.businessId, checkpoint.stream);
    await this.write(checkpoint.businessId, checkpoint.stream, JSON.stringify(checkpoint.position), checkpoint.recordsSynced, version);
  }

  /**
   * Inserts the checkpoint as a version above `above` (the stored row's) and remembers it once the
   * insert is acknowledged; a failed insert forgets the stream, so the next commit reads it again.
   */
  async write(businessId: string, stream: string, positionText: string, recordsSynced: number, above: number): Promise<void> {
    const { connection, clock, now } = this.#context;
    const key = streamKey(businessId, stream);
    const version = clock.next(above);
    const row = { business_id: businessId, stream, position: positionText, records_synced: recordsSynced, updated_at: nowDateTime(now()), version };
    this.#known.delete(key);
    await connection.insert(this.#table, [row]);
    this.#known.set(key, { checkpoint: { businessId, stream, position: JSON.parse(positionText) as JsonObject, recordsSynced }, version });
  }
}

function streamKey(businessId: string, stream: string): string {
  return `${businessId}\u0000${stream}`;
}

/** A stored dead letter's row as read back. */
interface DeadLetterRow {
  readonly id: string;
  readonly business_id: string;
  readonly stream: string;
  readonly fingerprint: string;
  readonly reason: string;
  readonly raw: string;
  readonly first_seen_at: string;
  readonly last_seen_at: string;
  readonly attempts: number;
  readonly removed: number;
  readonly version: string;
}

const DEAD_LETTER_COLUMNS = 'id, business_id, stream, fingerprint, reason, raw, first_seen_at, last_seen_at, attempts, removed, version';

/** The same bad record of the same business and stream has the same fingerprint (as the SQL sinks'), so a repeat bumps `attempts`. */
function fingerprintOf(letter: DeadLetter, raw: string): string {
  return createHash('sha256')
    .update(`[${JSON.stringify(letter.businessId)},${JSON.stringify(letter.stream)},${raw}]`)
    .digest('hex');
}

/** `dead_letters` as operators see it, oldest first; `id` is the version of its first sighting, so ids rise in the order letters were first seen. */
export class ClickHouseDeadLetters implements DeadLetterStore {
  readonly #context: StoreContext;
  readonly #table: string;

  constructor(context: StoreContext) {
    this.#context = context;
    this.#table = qualified(context.database, 'dead_letters');
  }

  /** @param filter.limit - at most this many rows; @defaultValue 100 */
  async list(filter: { businessId?: string; stream?: string; limit?: number }): Promise<StoredDeadLetter[]> {
    const where = ['removed = 0'];
    if (filter.businessId !== undefined) where.push(`business_id = ${quoteString(filter.businessId)}`);
    if (filter.stream !== undefined) where.push(`stream = ${quoteString(filter.stream)}`);
    const limit = Math.max(0, Math.floor(filter.limit ?? DEFAULT_DEAD_LETTER_LIMIT));
    const rows = await this.#context.connection.select<DeadLetterRow>(
      `SELECT ${DEAD_LETTER_COLUMNS} FROM ${this.#table} FINAL WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${limit}`,
    );
    return rows.map((row) => ({
      id: Number(row.id),
      businessId: row.business_id,
      stream: row.stream,
      reason: row.reason,
      raw: JSON.parse(row.raw) as Json,
      firstSeenAt: fromDateTime(row.first_seen_at),
      attempts: Number(row.attempts),
    }));
  }

  /** Marks the letters removed (a new version with `removed = 1`); a letter seen again afterwards starts afresh. */
  async remove(ids: readonly number[]): Promise<void> {
    const { connection, clock } = this.#context;
    for (const part of chunks(ids, IDS_PER_STATEMENT)) {
      const list = `(${part.map((id) => String(Math.trunc(id))).join(', ')})`;
      const [top] = await connection.select<{ top: string }>(`SELECT max(version) AS top FROM ${this.#table} WHERE id IN ${list}`);
      const version = clock.next(Number(top?.top ?? 0));
      await connection.command(
        `INSERT INTO ${this.#table} (${DEAD_LETTER_COLUMNS}) SELECT id, business_id, stream, fingerprint, reason, raw, first_seen_at, last_seen_at, ` +
          `attempts, 1, ${version} FROM ${this.#table} FINAL WHERE id IN ${list} AND removed = 0`,
      );
    }
  }

  /** Stores the letters of one business × stream: a new one with 1 attempt, one seen before with its attempts raised. */
  async record(businessId: string, stream: string, letters: readonly DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    const { connection, clock, now } = this.#context;
    const seen = new Map<string, { letter: DeadLetter; raw: string; times: number }>();
    for (const letter of letters) {
      const raw = jsonText(letter.raw);
      const fingerprint = fingerprintOf(letter, raw);
      const entry = seen.get(fingerprint);
      if (entry === undefined) seen.set(fingerprint, { letter, raw, times: 1 });
      else seen.set(fingerprint, { letter, raw, times: entry.times + 1 });
    }
    const stored = new Map<string, DeadLetterRow>();
    for (const part of chunks([...seen.keys()], IDS_PER_STATEMENT)) {
      const rows = await connection.select<DeadLetterRow>(
        `SELECT ${DEAD_LETTER_COLUMNS} FROM ${this.#table} FINAL WHERE business_id = ${quoteString(businessId)} AND stream = ${quoteString(stream)} ` +
          `AND fingerprint IN ${stringList(part)}`,
      );
      for (const row of rows) stored.set(row.fingerprint, row);
    }
    const top = Math.max(0, ...[...stored.values()].map((row) => Number(row.version)));
    const first = clock.next(top, seen.size);
    const at = nowDateTime(now());
    const rows = [...seen].map(([fingerprint, { letter, raw, times }], index) => {
      const before = stored.get(fingerprint);
      const live = before !== undefined && Number(before.removed) === 0 ? before : undefined;
      const version = first + index;
      return {
        id: live === undefined ? version : Number(live.id),
        business_id: businessId,
        stream,
        fingerprint,
        reason: letter.reason,
        raw,
        first_seen_at: live?.first_seen_at ?? at,
        last_seen_at: at,
        attempts: (live === undefined ? 0 : Number(live.attempts)) + times,
        removed: 0,
        version,
      };
    });
    await connection.insert(this.#table, rows);
  }
}

/** The rows of stream tables, for reconciliation: current rows (`FINAL`) by the key (business_id, id). */
export class ClickHouseRecords implements StateStoreRecords {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  #from(table: StreamTable, businessId: string): string {
    return `${qualified(this.#context.database, table.table)} FINAL WHERE business_id = ${quoteString(businessId)}`;
  }

  async listIds(businessId: string, table: StreamTable, options: { after?: string; limit?: number } = {}): Promise<string[]> {
    const after = options.after === undefined ? '' : ` AND id > ${quoteString(options.after)}`;
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_ID_PAGE));
    const rows = await this.#context.connection.select<{ id: string }>(
      `SELECT id FROM ${this.#from(table, businessId)}${after} AND deleted_at IS NULL ORDER BY id LIMIT ${limit}`,
    );
    return rows.map((row) => row.id);
  }

  async count(businessId: string, table: StreamTable): Promise<number> {
    const [row] = await this.#context.connection.select<{ n: string }>(`SELECT count() AS n FROM ${this.#from(table, businessId)} AND deleted_at IS NULL`);
    return Number(row?.n ?? 0);
  }

  async deletedAmong(businessId: string, table: StreamTable, ids: readonly string[]): Promise<ReadonlySet<string>> {
    const deleted = new Set<string>();
    for (const part of literalParts(ids, (id) => id, IDS_PER_STATEMENT)) {
      const rows = await this.#context.connection.select<{ id: string }>(
        `SELECT id FROM ${this.#from(table, businessId)} AND id IN ${stringList(part)} AND deleted_at IS NOT NULL`,
      );
      for (const row of rows) deleted.add(row.id);
    }
    return deleted;
  }

  async columnValues(businessId: string, table: StreamTable, column: string): Promise<string[]> {
    if (!table.columns.some((declared) => declared.name === column)) throw new Error(`table ${table.table} declares no column ${column}`);
    const name = quoteName(column);
    const rows = await this.#context.connection.select<{ value: string }>(
      `SELECT DISTINCT toString(${name}) AS value FROM ${this.#from(table, businessId)} AND deleted_at IS NULL AND ${name} IS NOT NULL`,
    );
    return rows.map((row) => row.value);
  }

  /** A new version of each row with `deleted_at` set, copied server-side (`INSERT … SELECT`); `synced_at` stays. */
  async markDeleted(businessId: string, table: StreamTable, ids: readonly string[]): Promise<number> {
    const { connection, clock, now, database } = this.#context;
    const target = qualified(database, table.table);
    const kept = ['business_id', 'id', 'source', ...table.columns.map((column) => quoteName(column.name)), 'raw', 'synced_at'].join(', ');
    let marked = 0;
    for (const part of literalParts(ids, (id) => id, IDS_PER_STATEMENT)) {
      const live = await connection.select<{ id: string; version: string }>(
        `SELECT id, version FROM ${this.#from(table, businessId)} AND id IN ${stringList(part)} AND deleted_at IS NULL`,
      );
      if (live.length === 0) continue;
      const version = clock.next(Math.max(...live.map((row) => Number(row.version))));
      const deletedAt = quoteString(nowDateTime(now()));
      await connection.command(
        `INSERT INTO ${target} (${kept}, deleted_at, version) SELECT ${kept}, toDateTime(${deletedAt}, 'UTC'), ${version} ` +
          `FROM ${this.#from(table, businessId)} AND id IN ${stringList(live.map((row) => row.id))} AND deleted_at IS NULL`,
      );
      marked += live.length;
    }
    return marked;
  }
}
