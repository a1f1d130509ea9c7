import type {
  Batch,
  CheckpointStore,
  DeadLetter,
  DeadLetterStore,
  JsonObject,
  SinkCapabilities,
  SinkNote,
  StoredRecords,
  StreamTable,
  SyncRecord,
  WriteResult,
} from './sink.js';

/**
 * The two parts a connector is made of; `managed-sink.ts` composes them into the engine's
 * {@link import('./sink.js').Sink}. A SQL connector is a state store alone (its own tables
 * are the target, written in the same transaction); HubSpot and webhook are a target plus a SQL
 * state store.
 */

/** Counts a target reports for what it stored, when it knows them better than the state store. */
export interface TargetCounts {
  readonly written: number;
  readonly unchanged: number;
}

/** What a target did with one batch. */
export interface TargetOutcome {
  /** Records the target acknowledged; the state store keeps a copy of them. */
  readonly stored: readonly SyncRecord[];
  /** Records the target refused for good, with its reason. */
  readonly rejected: readonly DeadLetter[];
  /** The target's own counts (a webhook receiver's acknowledgement); else the state store counts its copy. */
  readonly counts?: TargetCounts;
  /** What a person should know about this batch (counted), passed on in the write's result. */
  readonly notes?: readonly SinkNote[];
  /**
   * Present when the target says what it stores before it holds it durably (a file still being
   * encoded and stored): resolves once it does, rejects when it cannot. The state store writes its
   * copy meanwhile and commits only after it resolves, so the checkpoint never passes what the
   * target has not kept. The target needs nothing of the state store until it settles: the
   * store's transaction is open and waiting on it.
   */
  readonly durable?: Promise<void>;
}

/** Where records go when that is not the state store itself (a CRM, a webhook receiver). */
export interface Target {
  /** Flags the target declares; the rest take {@link defaultCapabilities}. */
  readonly capabilities?: Partial<SinkCapabilities>;
  /**
   * The streams this target writes. A batch of any other stream never reaches `send` or
   * `delete`: the state store keeps its records (a CRM reads them, e.g. the tracked numbers),
   * and none becomes a dead letter. @defaultValue every stream
   */
  readonly writes?: ReadonlySet<string>;
  /**
   * Whether `send` reads its `revived` argument. Finding those ids is a query of the state store
   * per batch, made only for a target that reads them; one that writes every record it is sent
   * anyway (Parquet: a file of new versions, newer than any deletion row) says false.
   * @defaultValue true
   */
  readonly readsRevived?: boolean;
  /** Target-side set-up (properties, …); called after the state store is prepared. */
  prepare(tables: readonly StreamTable[]): Promise<void>;
  /**
   * Sends one valid batch (one record per id). `revived` names the records the store holds as
   * deleted: they come back, so the target must take them even when their content is unchanged.
   * Throws when the target cannot take the batch now: nothing is committed then. The batch carries
   * each record's `raw` as JSON text (`rawTexts`), made once for the storability check: a target
   * that stores the text takes it from there rather than serialising every record a second time
   * and holding both copies while it writes. `revived` is empty for a target that says
   * {@link readsRevived} false. A target may resolve before its batch is durable, with a
   * {@link TargetOutcome.durable} that says when it is.
   */
  send(batch: StoreBatch, revived: ReadonlySet<string>): Promise<TargetOutcome>;
  /** Deletes records the way the target does (an archive call, a `deleted` event). */
  delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A state store's `records`, as the managed sink and the CRM targets read them: the engine's {@link StoredRecords}, plus which ids are marked deleted and a column's values. */
export interface StateStoreRecords extends StoredRecords {
  /** Those of `ids` stored for the business and marked deleted. */
  deletedAmong(businessId: string, table: StreamTable, ids: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * The distinct non-null values of one declared column over the business's stored, not deleted
   * rows, as text (a CRM target reads its business's tracked numbers this way). `column` must be
   * one of `table.columns`; the table must be prepared.
   */
  columnValues(businessId: string, table: StreamTable, column: string): Promise<string[]>;
}

/**
 * A batch as the managed sink commits it: checked, one record per id, every record storable.
 * `rawTexts[i]`, when given, is `records[i].raw` as JSON text (`JSON.stringify`), made once for
 * the storability check and stored as it is, so no record is serialised twice.
 */
export interface StoreBatch extends Batch {
  readonly rawTexts?: readonly string[];
}

/**
 * Checkpoints, dead letters, counts and the copy of stored records, committed together.
 * `records.markDeleted` only marks rows here; the managed sink asks the target first.
 */
export interface StateStore {
  readonly checkpoints: CheckpointStore;
  readonly deadLetters: DeadLetterStore;
  readonly records: StateStoreRecords;
  /** Runs migrations and creates the given tables; the managed sink calls it for tables not yet prepared. */
  prepare(tables: readonly StreamTable[]): Promise<void>;
  /**
   * In one transaction: upserts `batch.records`, stores `batch.deadLetters` and every record the
   * database refuses (as a dead letter with its reason), moves the checkpoint to `position` and
   * adds `written` (the target's `counts` when given, else the rows this commit changed) to
   * `recordsSynced`. With `targetDurable` (the target's {@link TargetOutcome.durable}) nothing is
   * committed before it resolves, and nothing at all when it rejects (the commit rejects with it).
   */
  commit(batch: StoreBatch, position: JsonObject, counts?: TargetCounts, targetDurable?: Promise<void>): Promise<WriteResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What a sink promises when it says nothing; a new flag gets a default here so no connector breaks. */
export const defaultCapabilities: SinkCapabilities = Object.freeze({ maxBatchSize: 500 });
