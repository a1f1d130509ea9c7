import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Json } from '../../src/sink/sink.js';
import type { NamedStatement, SqlAdapter, SqlDriver } from '../sql/index.js';
import { qualifiedTable, quoteIdentifier } from '../sql/schema.js';
import type { RecordingOutcome } from './download.js';
import type { RecordingRef } from './keys.js';

/**
 * Where the archive's state lives: a `recordings` table of its own, keyed by business, stream and
 * record id, in the sink's own database. The archiver writes it and the page's write path never
 * does, so the sink's upserts, its COPY and its figures are untouched and the two never race for a
 * row; a reader joins it beside each record (docs/recordings.md).
 */

/**
 * `pending` until a download ends; `archived`, `expired` and `failed` are final until `retry`;
 * `deleted` once its record was marked deleted and `recordings.deleteWithRecord` removed it.
 */
export type RecordingState = 'archived' | 'pending' | 'expired' | 'failed' | 'deleted';

/** A recording whose record is marked deleted: `key` is where it is archived (`archived` rows only). */
export interface WithdrawnRecording extends RecordingRef {
  readonly state: RecordingState;
  readonly key: string | undefined;
}

/** A stream table whose records carry a recording link (`recording_url`) and a `created_at`. */
export interface RecordingSource {
  readonly stream: string;
  readonly table: string;
}

/** One business × stream × state: how many recordings, and their bytes (archived ones). */
interface RecordingCount {
  readonly businessId: string;
  readonly stream: string;
  readonly state: RecordingState;
  readonly count: number;
  readonly bytes: number;
}

/** A recording as the status lists it. */
interface RecordingRow extends RecordingRef {
  readonly state: RecordingState;
  readonly reason: string | undefined;
  readonly attempts: number;
}

const TABLE = 'recordings';
/**
 * When the record of an archived recording was last written to a CRM with its archived link
 * (null: not yet, or archived again since): what a CRM sink still owes, kept across a crash.
 */
const LINK_SENT_AT = 'link_sent_at';

/** Ids per lookup statement, well under every bind limit. */
const LOOKUP_CHUNK = 500;

/** The reason a `deleted` row carries. */
const DELETED_REASON = 'record marked deleted; recording removed (recordings.deleteWithRecord)';

function named(text: string): NamedStatement {
  return { text, name: `recordings_${createHash('sha256').update(text).digest('hex').slice(0, 12)}` };
}

/** The archive's state table, over a dialect's driver and adapter. */
export class RecordingStateStore {
  readonly #adapter: SqlAdapter;
  readonly #driver: SqlDriver;
  readonly #table: string;
  readonly #pending: NamedStatement;

  constructor(adapter: SqlAdapter, driver: SqlDriver) {
    this.#adapter = adapter;
    this.#driver = driver;
    this.#table = qualifiedTable(adapter, TABLE);
    const p = (index: number): string => adapter.placeholder(index);
    this.#pending = named(
      `select stream, id, url, created_at from ${this.#table} where business_id = ${p(1)} and recording_state = 'pending' ` +
        `order by created_at, stream, id limit ${p(2)}`,
    );
  }

  /** Creates the table and its index when missing, under the schema lock every process shares. */
  async prepare(): Promise<void> {
    const adapter = this.#adapter;
    const key = sql.raw(adapter.keyTextType ?? 'text');
    const long = sql.raw(adapter.longTextType ?? 'text');
    const timestamp = sql.raw(adapter.timestampType);
    const counter = sql.raw(adapter.counterType);
    await this.#driver.withSchemaLock(async (db) => {
      // A CRM sink opens the archive's state before its state store migrates, which is what creates the schema.
      if (adapter.schema !== undefined) await db.schema.createSchema(adapter.schema).ifNotExists().execute();
      let table = db.schema
        .createTable(TABLE)
        .ifNotExists()
        .addColumn('business_id', key, (column) => column.notNull())
        .addColumn('stream', key, (column) => column.notNull())
        .addColumn('id', key, (column) => column.notNull())
        .addColumn('url', long, (column) => column.notNull())
        .addColumn('created_at', timestamp)
        .addColumn('recording_state', key, (column) => column.notNull())
        .addColumn('recording_reason', long)
        .addColumn('recording_archive_key', long)
        .addColumn('recording_sha256', key)
        .addColumn('recording_bytes', counter)
        .addColumn('recording_archived_at', timestamp)
        .addColumn('attempts', counter, (column) => column.notNull().defaultTo(0))
        .addColumn('updated_at', timestamp, (column) => column.notNull())
        .addColumn(LINK_SENT_AT, timestamp)
        .addPrimaryKeyConstraint('recordings_pkey', ['business_id', 'stream', 'id']);
      if (adapter.tableOptions !== undefined) table = table.modifyEnd(sql.raw(adapter.tableOptions));
      await table.execute();
      // A table created before the column existed: its archived rows read as not sent, so each is written to the CRM once more.
      const existing = (await db.introspection.getTables()).find(
        (candidate) => candidate.name === TABLE && (adapter.schema === undefined || candidate.schema === adapter.schema),
      );
      if (existing !== undefined && !existing.columns.some((column) => column.name === LINK_SENT_AT))
        await db.schema.alterTable(TABLE).addColumn(LINK_SENT_AT, timestamp).execute();
      await sql.raw(`create index if not exists recordings_state_idx on ${this.#table} (business_id, recording_state)`).execute(db);
      await sql.raw(`create index if not exists recordings_unsent_idx on ${this.#table} (business_id, recording_state, ${LINK_SENT_AT})`).execute(db);
    });
  }

  /**
   * Adds as `pending` every stored record of `source` with a recording link that the table does not
   * hold yet (a record marked deleted is left out), and takes a changed link (upstream signed it
   * anew) for one not archived. A `deleted` recording whose record is stored again is `pending`
   * again, with the record's link. Resolves with the rows added or changed.
   */
  async enqueue(businessId: string, source: RecordingSource, now: string): Promise<number> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const records = qualifiedTable(this.#adapter, source.table);
    const row = quoteIdentifier(TABLE);
    const text =
      `insert into ${this.#table} (business_id, stream, id, url, created_at, recording_state, attempts, updated_at) ` +
      `select business_id, cast(${p(1)} as text), id, recording_url, created_at, 'pending', 0, cast(${p(2)} as ${this.#adapter.timestampType}) ` +
      `from ${records} where business_id = ${p(3)} and recording_url is not null and deleted_at is null ` +
      `on conflict (business_id, stream, id) do update set url = excluded.url, updated_at = excluded.updated_at, ` +
      `recording_state = case when ${row}.recording_state = 'deleted' then 'pending' else ${row}.recording_state end ` +
      `where (${row}.url <> excluded.url and ${row}.recording_state <> 'archived') or ${row}.recording_state = 'deleted'`;
    return this.#driver.transaction((executor) => executor.run(text, [source.stream, now, businessId]));
  }

  /**
   * Up to `limit` recordings of `source` not yet `deleted` whose record is marked deleted. Only the
   * reconcile's deletion guard marks a record deleted, so a recording is listed here only after the
   * guard let its row go.
   */
  async withdrawn(businessId: string, source: RecordingSource, limit: number): Promise<WithdrawnRecording[]> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const records = qualifiedTable(this.#adapter, source.table);
    const text =
      `select r.id, r.url, r.created_at, r.recording_state, r.recording_archive_key from ${this.#table} as r ` +
      `join ${records} as t on t.business_id = r.business_id and t.id = r.id ` +
      `where r.business_id = ${p(1)} and r.stream = ${p(2)} and t.deleted_at is not null and r.recording_state <> 'deleted' ` +
      `order by r.id limit ${p(3)}`;
    const rows = await this.#driver.select(named(text), [businessId, source.stream, limit]);
    return rows.map((row) => ({
      businessId,
      stream: source.stream,
      id: String(row.id),
      url: String(row.url),
      createdAt: row.created_at === null || row.created_at === undefined ? undefined : this.#adapter.decodeTimestamp(row.created_at),
      state: String(row.recording_state) as RecordingState,
      key: typeof row.recording_archive_key === 'string' ? row.recording_archive_key : undefined,
    }));
  }

  /** Marks a recording `deleted`: its object and checksum are gone with its record. */
  async markDeleted(ref: RecordingRef, now: string): Promise<void> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const text =
      `update ${this.#table} set recording_state = 'deleted', recording_reason = ${p(1)}, recording_sha256 = null, recording_bytes = null, ` +
      `updated_at = ${p(2)} where business_id = ${p(3)} and stream = ${p(4)} and id = ${p(5)}`;
    const values = [DELETED_REASON, now, ref.businessId, ref.stream, ref.id];
    await this.#driver.transaction((executor) => executor.run(text, values));
  }

  /** Up to `limit` pending recordings of a business, oldest first. */
  async pending(businessId: string, limit: number): Promise<RecordingRef[]> {
    const rows = await this.#driver.select(this.#pending, [businessId, limit]);
    return rows.map((row) => ({
      businessId,
      stream: String(row.stream),
      id: String(row.id),
      url: String(row.url),
      createdAt: row.created_at === null || row.created_at === undefined ? undefined : this.#adapter.decodeTimestamp(row.created_at),
    }));
  }

  /**
   * The public links (`<publicBaseUrl>/<key>`, the key's segments percent-encoded already) of
   * those of `ids` whose recording is archived, by id: what a CRM sink sends instead of upstream's
   * link. An id absent from the map has no archived recording yet.
   */
  async archivedLinks(businessId: string, stream: string, ids: readonly string[], publicBaseUrl: string): Promise<Map<string, string>> {
    const links = new Map<string, string>();
    const p = (index: number): string => this.#adapter.placeholder(index);
    for (let from = 0; from < ids.length; from += LOOKUP_CHUNK) {
      const part = ids.slice(from, from + LOOKUP_CHUNK);
      const text =
        `select id, recording_archive_key from ${this.#table} where business_id = ${p(1)} and stream = ${p(2)} and recording_state = 'archived' ` +
        `and id in (${part.map((_id, index) => p(index + 3)).join(', ')})`;
      for (const row of await this.#driver.select(named(text), [businessId, stream, ...part])) {
        if (typeof row.recording_archive_key === 'string') links.set(String(row.id), `${publicBaseUrl}/${row.recording_archive_key}`);
      }
    }
    return links;
  }

  /**
   * One page (ids ascending, after `after`) of the stored, not deleted records of `source` whose
   * recording is archived and whose archived link no CRM write has carried yet (`link_sent_at`
   * null), each with its `raw` as stored: what a CRM sink writes again so the CRM gets the archived
   * link. `raw` is read as text, the same in every dialect.
   */
  async unsentLinks(businessId: string, source: RecordingSource, after: string, limit: number): Promise<{ id: string; raw: Json }[]> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const records = qualifiedTable(this.#adapter, source.table);
    const text =
      `select t.id, cast(t.raw as text) as raw from ${this.#table} as r join ${records} as t on t.business_id = r.business_id and t.id = r.id ` +
      `where r.business_id = ${p(1)} and r.stream = ${p(2)} and r.recording_state = 'archived' and r.${LINK_SENT_AT} is null ` +
      `and t.deleted_at is null and t.id > ${p(3)} order by t.id limit ${p(4)}`;
    const rows = await this.#driver.select(named(text), [businessId, source.stream, after, limit]);
    return rows.map((row) => ({ id: String(row.id), raw: JSON.parse(String(row.raw)) as Json }));
  }

  /**
   * Marks the archived links of `ids` sent, once the CRM took the write that carried them. Only
   * rows archived at or before `readAt` (when the caller read them): a recording archived again
   * since (its record stored again after `deleted`) still owes its new link. Resolves with the rows marked.
   */
  async markLinksSent(businessId: string, stream: string, ids: readonly string[], readAt: string, now: string): Promise<number> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    let marked = 0;
    for (let from = 0; from < ids.length; from += LOOKUP_CHUNK) {
      const part = ids.slice(from, from + LOOKUP_CHUNK);
      const text =
        `update ${this.#table} set ${LINK_SENT_AT} = cast(${p(1)} as ${this.#adapter.timestampType}) ` +
        `where business_id = ${p(2)} and stream = ${p(3)} and recording_state = 'archived' and ${LINK_SENT_AT} is null ` +
        `and recording_archived_at <= cast(${p(4)} as ${this.#adapter.timestampType}) and id in (${part.map((_id, index) => p(index + 5)).join(', ')})`;
      marked += await this.#driver.transaction((executor) => executor.run(text, [now, businessId, stream, readAt, ...part]));
    }
    return marked;
  }

  /** Records how a download ended; `archived` with its key, SHA-256, size and time. */
  async settle(ref: RecordingRef, outcome: RecordingOutcome, now: string): Promise<void> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const archived = outcome.state === 'archived';
    const text =
      `update ${this.#table} set recording_state = ${p(1)}, recording_reason = ${p(2)}, recording_archive_key = ${p(3)}, ` +
      `recording_sha256 = ${p(4)}, recording_bytes = ${p(5)}, recording_archived_at = ${p(6)}, attempts = attempts + 1, updated_at = ${p(7)}, ` +
      // Archived (again): the CRM has not had this link yet.
      `${LINK_SENT_AT} = null ` +
      `where business_id = ${p(8)} and stream = ${p(9)} and id = ${p(10)}`;
    const values = [
      outcome.state,
      archived ? null : outcome.reason,
      archived ? outcome.key : null,
      archived ? outcome.sha256 : null,
      archived ? outcome.bytes : null,
      archived ? now : null,
      now,
      ref.businessId,
      ref.stream,
      ref.id,
    ];
    await this.#driver.transaction((executor) => executor.run(text, values));
  }

  /** Every business × stream × state with its count and bytes. */
  async counts(): Promise<RecordingCount[]> {
    const rows = await this.#driver.select(
      named(
        `select business_id, stream, recording_state, count(*) as n, coalesce(sum(recording_bytes), 0) as bytes from ${this.#table} ` +
          `group by business_id, stream, recording_state order by business_id, stream, recording_state`,
      ),
      [],
    );
    return rows.map((row) => ({
      businessId: String(row.business_id),
      stream: String(row.stream),
      state: String(row.recording_state) as RecordingState,
      count: this.#adapter.decodeInteger(row.n),
      bytes: this.#adapter.decodeInteger(row.bytes),
    }));
  }

  /** Up to `limit` recordings in one of `states`, oldest first. */
  async list(states: readonly RecordingState[], limit: number): Promise<RecordingRow[]> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const text =
      `select business_id, stream, id, url, created_at, recording_state, recording_reason, attempts from ${this.#table} ` +
      `where recording_state in (${states.map((_state, index) => p(index + 1)).join(', ')}) order by created_at, business_id, stream, id limit ${p(states.length + 1)}`;
    const rows = await this.#driver.select(named(text), [...states, limit]);
    return rows.map((row) => ({
      businessId: String(row.business_id),
      stream: String(row.stream),
      id: String(row.id),
      url: String(row.url),
      createdAt: row.created_at === null ? undefined : this.#adapter.decodeTimestamp(row.created_at),
      state: String(row.recording_state) as RecordingState,
      reason: typeof row.recording_reason === 'string' ? row.recording_reason : undefined,
      attempts: this.#adapter.decodeInteger(row.attempts),
    }));
  }

  /** Puts recordings in `states` back to `pending` (their reason cleared); resolves with how many. */
  async requeue(states: readonly RecordingState[], now: string): Promise<number> {
    const p = (index: number): string => this.#adapter.placeholder(index);
    const text =
      `update ${this.#table} set recording_state = 'pending', recording_reason = null, updated_at = ${p(1)} ` +
      `where recording_state in (${states.map((_state, index) => p(index + 2)).join(', ')})`;
    return this.#driver.transaction((executor) => executor.run(text, [now, ...states]));
  }

  close(): Promise<void> {
    return this.#driver.destroy();
  }
}
