import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import type { Json, JsonObject } from '../base/json.js';

export type { Json, JsonObject } from '../base/json.js';
import type { ColumnSpec, ColumnValue } from '../normalize/column-types.js';

export type { ColumnType, ColumnValue } from '../normalize/column-types.js';

/**
 * The contract between the sync engine and every connector. The engine only ever sees these
 * types; connectors are found through `connectors/registry.ts` by `sink.type`.
 */

/** Which upstream interface a record came from. */
export type RecordSource = 'v1' | 'v2';

/** Columns every stream table has; a stream (or the config's `columns:`) may not declare them again. */
export const RESERVED_COLUMNS: ReadonlySet<string> = new Set(['business_id', 'id', 'source', 'raw', 'synced_at', 'deleted_at']);

/**
 * The table a stream is stored in. Every table also has `business_id`, `id`, `source`, `raw`
 * and `synced_at`, with primary key (`business_id`, `id`); `columns` lists the normalized fields.
 */
export interface StreamTable {
  /** Stream name, also the key of its checkpoint in `sync_state`. */
  readonly stream: string;
  /** Table name; a safe SQL identifier (`^[a-z_][a-z0-9_]*$`). */
  readonly table: string;
  readonly columns: readonly ColumnSpec[];
}

/** One record in v1 form, ready for any sink. */
export interface SyncRecord {
  /** The configured business name (stored as `business_id`). */
  readonly businessId: string;
  readonly id: string;
  readonly source: RecordSource;
  /** Normalized values keyed by column name; a missing column is stored as null. */
  readonly fields: Readonly<Record<string, ColumnValue>>;
  /** The upstream record exactly as received (parsed JSON). */
  readonly raw: Json;
}

/** A record that could not be normalized or that the target rejected; kept, never dropped. */
export interface DeadLetter {
  readonly businessId: string;
  readonly stream: string;
  /** Human-readable cause naming the field, e.g. `voicemail_created_at: unparseable "2024-13-01"`. */
  readonly reason: string;
  /** The upstream record as received. */
  readonly raw: Json;
}

/**
 * Where a stream stands for one business. `position` belongs to the stream's checkpoint
 * strategy (cursor, offset, high-water mark); sinks store it as opaque JSON.
 */
export interface Checkpoint {
  readonly businessId: string;
  readonly stream: string;
  readonly position: JsonObject;
  /**
   * Records the target reported inserted or changed for this business and stream, summed over
   * every write (a replayed batch adds 0). `Sink.write` adds to it; only `save` (an operator's
   * reset) sets it.
   */
  readonly recordsSynced: number;
}

/** One page worth of work for a sink, all for one business and one stream. */
export interface Batch {
  readonly businessId: string;
  readonly table: StreamTable;
  readonly records: readonly SyncRecord[];
  readonly deadLetters: readonly DeadLetter[];
}

/**
 * Something a sink did with a batch that a person should know, though nothing failed (calls
 * whose customer a CRM could only guess from the direction). The engine sums notes per code over
 * a run and shows each as one warning (`<count> <message>`) in the summary and status.
 */
export interface SinkNote {
  /** Stable code (`^[a-z][a-z0-9_]*$`), the same for every batch of the same kind. */
  readonly code: string;
  /** Records of the batch this note is about; notes with 0 are not given. */
  readonly count: number;
  /** What it means and what to do, read after the count: `calls: … ; list the numbers in …`. */
  readonly message: string;
}

export interface WriteResult {
  /** Rows inserted or changed (a row marked deleted that comes back counts). A replay of an already written batch reports 0. */
  readonly written: number;
  /** Rows already present with identical content. */
  readonly unchanged: number;
  /** Dead letters recorded, including records the sink could not store and records the target rejected. */
  readonly deadLettered: number;
  /** What a person should know about the batch; absent when there is nothing. */
  readonly notes?: readonly SinkNote[];
}

/** What a sink can promise; the code that depends on a flag reads it. */
export interface SinkCapabilities {
  /**
   * Largest number of records `write` accepts at once; the engine splits larger pages.
   * @defaultValue 500
   */
  readonly maxBatchSize: number;
  /**
   * How much the sink wants per write, for a sink whose cost is per transaction or per file: the
   * engine gathers a stream's normalized pages and writes them together, with the position after
   * the last of them. @defaultValue absent: every page is written by itself
   */
  readonly flush?: FlushLimits;
  /**
   * The target sends an archived recording's public link (`recordings.publicBaseUrl`) instead of
   * upstream's, looked up at each write: a call written before its recording was archived carries
   * the archived link only once it is written again, which the archive does once it is archived (docs/recordings.md).
   * @defaultValue absent: the target sends the links the records carry
   */
  readonly archivedRecordingLinks?: boolean;
}

/**
 * When the pages gathered for one write are written: once they hold at least `maxRows` records,
 * or `maxMs` after the first of them was gathered (also while the next page is awaited), at the
 * end of the stream and when the run stops. A crash repeats fetching only the pages gathered and
 * not yet written. `{ maxRows: 0, maxMs: 0 }` writes every page by itself.
 */
export interface FlushLimits {
  /** Records (after normalizing) that fill a flush; a whole number from 0, or `Infinity`. */
  readonly maxRows: number;
  /** Milliseconds a flush may wait for more pages after its first; from 0, or `Infinity`. */
  readonly maxMs: number;
}

export interface CheckpointStore {
  /**
   * The last stored checkpoint, or undefined when the stream has never synced. The engine calls it
   * at the start of every run of a stream, before that run's first write: a store that keeps what
   * it last stored (to spare a page's write a read) reads again here, since another process may
   * have written the stream while the lease was elsewhere.
   */
  load(businessId: string, stream: string): Promise<Checkpoint | undefined>;
  /** Replaces the stored checkpoint, `recordsSynced` included (an operator's reset). */
  save(checkpoint: Checkpoint): Promise<void>;
}

/** A stored dead letter as operators see it. */
export interface StoredDeadLetter extends DeadLetter {
  readonly id: number;
  readonly firstSeenAt: string;
  readonly attempts: number;
}

export interface DeadLetterStore {
  /** @param filter.limit - @defaultValue {@link DEFAULT_DEAD_LETTER_LIMIT} */
  list(filter: { businessId?: string; stream?: string; limit?: number }): Promise<StoredDeadLetter[]>;
  /** Removes dead letters once replayed successfully. */
  remove(ids: readonly number[]): Promise<void>;
}

/** Default page of {@link DeadLetterStore.list}. */
export const DEFAULT_DEAD_LETTER_LIMIT = 100;

/** Default page of {@link StoredRecords.listIds}. */
export const DEFAULT_ID_PAGE = 1000;

/**
 * What the sink holds for one business × stream, for reconciliation. Deleted rows stay stored
 * with `deleted_at` set and are left out of `listIds` and `count`; a record written again clears it.
 */
export interface StoredRecords {
  /**
   * One page of the ids stored and not marked deleted, ascending in the store's own order; pass
   * the last id of a page as `after` for the next. An empty page is the end.
   * @param options.limit - @defaultValue {@link DEFAULT_ID_PAGE}
   */
  listIds(businessId: string, table: StreamTable, options?: { after?: string; limit?: number }): Promise<string[]>;
  /** Rows stored and not marked deleted. */
  count(businessId: string, table: StreamTable): Promise<number>;
  /**
   * Deletes the records at the target the way it deletes (SQL: sets `deleted_at`; HubSpot: the
   * batch archive call; webhook: a `deleted` event), then marks them deleted in the store.
   * Never a hard delete. Resolves with the number of rows newly marked; ids not stored or
   * already marked are ignored.
   */
  markDeleted(businessId: string, table: StreamTable, ids: readonly string[]): Promise<number>;
}

/**
 * Every stored, not deleted id of one business × stream, one page at a time (at most `pageSize`
 * ids in memory), in {@link StoredRecords.listIds} order.
 */
export async function* storedIdPages(records: StoredRecords, businessId: string, table: StreamTable, pageSize = DEFAULT_ID_PAGE): AsyncGenerator<string[]> {
  let after: string | undefined;
  for (;;) {
    const page = await records.listIds(businessId, table, after === undefined ? { limit: pageSize } : { after, limit: pageSize });
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1];
  }
}

export interface Sink {
  readonly capabilities: SinkCapabilities;
  readonly checkpoints: CheckpointStore;
  readonly deadLetters: DeadLetterStore;
  readonly records: StoredRecords;
  /** Runs migrations and creates the tables of the given streams; safe to call on every start. */
  prepare(tables: readonly StreamTable[]): Promise<void>;
  /**
   * Upserts the batch idempotently by (business, id), records its dead letters (and every record
   * it cannot store, with the reason), moves the stream's checkpoint to `position` and adds
   * `written` to its `recordsSynced`. Writing the same batch twice changes nothing the second time.
   */
  write(batch: Batch, position: JsonObject): Promise<WriteResult>;
  /** Resolves when the target is reachable; rejects with the reason otherwise (readiness). */
  ping(): Promise<void>;
  /** Releases connections; calling it twice is harmless. */
  close(): Promise<void>;
}

/** What a connector receives besides its own config; clients are injected, never global. */
export interface SinkDeps {
  readonly logger: Logger;
  /** undici dispatcher for HTTP connectors; tests pass a MockAgent. */
  readonly dispatcher?: Dispatcher;
  /**
   * Where the recordings archive is served (`recordings.publicBaseUrl`): a CRM sink sends an
   * archived recording's link under it instead of upstream's. @defaultValue none: upstream's links
   */
  readonly recordingsBaseUrl?: string | undefined;
}

/** The sink as its config names it, for an operator's message. */
export interface SinkDescription {
  /** The config key an operator edits to point callsync elsewhere, e.g. `sink.url`. */
  readonly key: string;
  /** The service in a sentence: `PostgreSQL`, `the webhook receiver`. */
  readonly service: string;
  /** The value of `key` without credentials or query (`showUrl`), or a path. */
  readonly shown: string;
  /**
   * The sink as a lock name: the place written (database file, database and schema, receiver),
   * never a credential; two configs writing the same place give the same name. One writer per
   * sink × business × stream holds the lease of that name.
   */
  readonly lockName: string;
}

/**
 * The fix a connector's error carries (`fix`: what the operator does, naming the `sink.` key to
 * change), anywhere along its `cause` chain; undefined when none does.
 */
export function connectorFix(error: unknown): string | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth += 1) {
    const { fix, cause } = current as { fix?: unknown; cause?: unknown };
    if (typeof fix === 'string' && fix !== '') return fix;
    current = cause;
  }
  return undefined;
}

/** A failure only the connector can read (its driver's error codes), said for the operator. */
export interface SinkFailureExplanation {
  /** What failed, one line naming where (the key and the value shown). */
  readonly what: string;
  /** What to do about it. */
  readonly fix: string;
  /** `unreachable`: the service refused us or could not be reached; `filesystem`: the local disk said no. */
  readonly cause: 'unreachable' | 'filesystem';
}

/**
 * What every `connectors/<name>/index.ts` exports. `configSchema` validates the `sink:` section
 * (including `type`); the registry builds the config file's sink union from these schemas.
 */
export interface SinkFactory<Config extends { type: string } = { type: string }> {
  readonly type: Config['type'];
  readonly configSchema: ZodType<Config>;
  create(config: Config, deps: SinkDeps): Promise<Sink>;
  /** Names the configured sink for messages; the CLI asks this, never which type it is. */
  describe(config: Config): SinkDescription;
  /**
   * The operator's two lines for a failure carrying one of this connector's own codes (every
   * `code` along the error's `cause` chain, outermost first); `undefined` leaves the failure to the
   * generic reading (network, file system). @defaultValue absent: no codes of its own
   */
  explain?(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined;
}
