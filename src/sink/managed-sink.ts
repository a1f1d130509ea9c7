import type { Logger } from 'pino';
import type {
  Batch,
  CheckpointStore,
  DeadLetterStore,
  JsonObject,
  Sink,
  SinkCapabilities,
  SinkFailureExplanation,
  StoredRecords,
  StreamTable,
  SyncRecord,
  WriteResult,
} from './sink.js';
import { defaultCapabilities, type StateStore, type StoreBatch, type Target, type TargetOutcome } from './parts.js';
import { InvalidBatchError, SinkClosedError, SinkUnavailableError } from './sink-errors.js';
import { splitStorable } from './storable.js';

/** What a connector hands the managed sink: its state store and, unless the store is the target (SQL), its target. */
interface SinkParts {
  /** Connector type as in config (`sqlite`, `hubspot`, …); used in logs and errors. */
  readonly type: string;
  readonly store: StateStore;
  readonly target?: Target;
  /**
   * Flags of a connector that is its state store alone (a SQL sink: its `maxBatchSize`, its
   * `flush`); a target declares its own on {@link Target.capabilities}. @defaultValue {@link defaultCapabilities}
   */
  readonly capabilities?: Partial<SinkCapabilities>;
  /**
   * The connector's reading of a failure the operator can fix (its service unreachable, a full
   * disk); such a failure is thrown as a {@link SinkUnavailableError} naming the sink's config key.
   * @defaultValue none: failures are thrown as they come
   */
  readonly explain?: (error: unknown) => SinkFailureExplanation | undefined;
}

/**
 * Composes a connector's parts into the engine's {@link Sink} and owns what every connector
 * shares, so connectors hold only their own I/O: migrations run once (and again after a failed
 * attempt), a table is prepared before its first use, batches are checked against the contract,
 * repeated ids are collapsed and records no store can keep become dead letters, a stream the
 * target does not write ({@link Target.writes}) is kept by the state store alone, every operation
 * after `close()` rejects with {@link SinkClosedError}, and `close()` waits for in-flight work.
 */
export class ManagedSink implements Sink {
  readonly capabilities: SinkCapabilities;
  readonly checkpoints: CheckpointStore;
  readonly deadLetters: DeadLetterStore;
  readonly records: StoredRecords;
  readonly #parts: SinkParts;
  readonly #logger: Logger;
  readonly #prepared = new Set<string>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #migrated = false;
  #prepareChain: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(parts: SinkParts, logger: Logger) {
    this.#parts = parts;
    this.#logger = logger.child({ sink: parts.type });
    this.capabilities = Object.freeze({ ...defaultCapabilities, ...parts.capabilities, ...parts.target?.capabilities });
    const { checkpoints, deadLetters, records } = parts.store;
    this.checkpoints = {
      load: (businessId, stream) => this.#run('load a checkpoint', () => checkpoints.load(businessId, stream)),
      save: (checkpoint) => this.#run('save a checkpoint', () => checkpoints.save(checkpoint)),
    };
    this.deadLetters = {
      list: (filter) => this.#run('list dead letters', () => deadLetters.list(filter)),
      remove: (ids) => this.#run('remove dead letters', () => deadLetters.remove(ids)),
    };
    this.records = {
      listIds: (businessId, table, options) => this.#run('list stored ids', () => records.listIds(businessId, table, options), [table]),
      count: (businessId, table) => this.#run('count stored records', () => records.count(businessId, table), [table]),
      markDeleted: (businessId, table, ids) =>
        this.#run(
          'mark records deleted',
          async () => {
            if (ids.length === 0) return 0;
            if (parts.target !== undefined && writes(parts.target, table)) await parts.target.delete(businessId, table, ids);
            return records.markDeleted(businessId, table, ids);
          },
          [table],
        ),
    };
  }

  prepare(tables: readonly StreamTable[]): Promise<void> {
    return this.#track('prepare', () => this.#ensurePrepared(tables));
  }

  write(batch: Batch, position: JsonObject): Promise<WriteResult> {
    return this.#run(
      'write',
      async () => {
        assertValidBatch(batch, position, this.capabilities.maxBatchSize);
        const { storable, rawTexts, unstorable } = splitStorable(batch, lastPerId(batch.records));
        const { store, target } = this.#parts;
        const deadLetters = [...batch.deadLetters, ...unstorable];
        let result: WriteResult;
        if (target === undefined || !writes(target, batch.table)) {
          result = await store.commit({ ...batch, records: storable, rawTexts, deadLetters }, position);
        } else {
          const outcome =
            storable.length === 0 ? { stored: [], rejected: [] } : await this.#send(target, { ...batch, records: storable, rawTexts, deadLetters: [] });
          const committed = { ...batch, records: outcome.stored, deadLetters: [...deadLetters, ...outcome.rejected] };
          result = await committedAfterTarget(
            store.commit(outcome.stored === storable ? { ...committed, rawTexts } : committed, position, outcome.counts, outcome.durable),
            outcome,
          );
          if (outcome.notes !== undefined && outcome.notes.length > 0) result = { ...result, notes: outcome.notes };
        }
        const refused = result.deadLettered - batch.deadLetters.length;
        const context = { businessId: batch.businessId, stream: batch.table.stream, ...result };
        if (refused > 0) this.#logger.warn(context, `${this.#parts.type} could not store ${refused} record(s); kept as dead letters`);
        else this.#logger.debug(context, 'batch written');
        return result;
      },
      [batch.table],
    );
  }

  async #send(target: Target, batch: StoreBatch): Promise<TargetOutcome> {
    if (target.readsRevived === false) return target.send(batch, NONE_REVIVED);
    const revived = await this.#parts.store.records.deletedAmong(
      batch.businessId,
      batch.table,
      batch.records.map((record) => record.id),
    );
    return target.send(batch, revived);
  }

  ping(): Promise<void> {
    return this.#track('ping', async () => {
      await Promise.all([this.#parts.store.ping(), this.#parts.target?.ping()]);
    });
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#inFlight]);
      const results = await Promise.allSettled([this.#parts.target?.close(), this.#parts.store.close()]);
      this.#logger.debug('sink closed');
      const failure = results.find((outcome) => outcome.status === 'rejected');
      if (failure !== undefined) throw failure.reason;
    })();
    return this.#closing;
  }

  /** Runs an operation that needs migrations (and `tables`) in place first. */
  #run<T>(operation: string, body: () => Promise<T>, tables: readonly StreamTable[] = []): Promise<T> {
    return this.#track(operation, async () => {
      await this.#ensurePrepared(tables);
      return body();
    });
  }

  #track<T>(operation: string, body: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new SinkClosedError(this.#parts.type, operation));
    // A part that throws synchronously still yields a rejected promise, never a throw.
    const pending = (async () => body())().catch((error: unknown) => {
      throw this.#explained(error);
    });
    this.#inFlight.add(pending);
    const forget = (): void => void this.#inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
  }

  /** A failure the connector explains, unless it already says what it is (its own `kind`). */
  #explained(error: unknown): unknown {
    if (this.#parts.explain === undefined || typeof (error as { kind?: unknown } | null)?.kind === 'string') return error;
    const explanation = this.#parts.explain(error);
    return explanation === undefined ? error : new SinkUnavailableError(explanation, error);
  }

  #ensurePrepared(tables: readonly StreamTable[]): Promise<void> {
    const missing = (): StreamTable[] => tables.filter((table) => !this.#prepared.has(tableKey(table)));
    if (this.#migrated && missing().length === 0) return Promise.resolve();
    // Serialised so concurrent first writes migrate once; a failed attempt leaves the next caller to retry.
    const attempt = this.#prepareChain.then(async () => {
      const todo = missing();
      if (this.#migrated && todo.length === 0) return;
      await this.#parts.store.prepare(todo);
      await this.#parts.target?.prepare(todo);
      this.#migrated = true;
      for (const table of todo) this.#prepared.add(tableKey(table));
      this.#logger.info({ tables: todo.map((table) => table.table) }, 'sink prepared');
    });
    this.#prepareChain = attempt.catch(() => undefined);
    return attempt;
  }
}

/**
 * The commit's result once the target's batch is durable too (see {@link TargetOutcome.durable}):
 * the write ends when both have settled, so `close()`, which waits for writes, never leaves a
 * file being stored, and a failed commit is reported only once the target is done.
 */
async function committedAfterTarget(committing: Promise<WriteResult>, outcome: TargetOutcome): Promise<WriteResult> {
  if (outcome.durable === undefined) return committing;
  const [committed, durable] = await Promise.allSettled([committing, outcome.durable]);
  if (committed.status === 'rejected') throw committed.reason;
  if (durable.status === 'rejected') throw durable.reason;
  return committed.value;
}

/** What a target that does not read `revived` is sent (see {@link Target.readsRevived}). */
const NONE_REVIVED: ReadonlySet<string> = new Set();

/** Whether the target writes this stream; the others are kept by the state store alone. */
function writes(target: Target, table: StreamTable): boolean {
  return target.writes === undefined || target.writes.has(table.stream);
}

/** A table with added columns counts as new, so `prepare` gets the chance to add them. */
function tableKey(table: StreamTable): string {
  return `${table.table}(${table.columns.map((column) => `${column.name} ${column.type}`).join(',')})`;
}

// The batch rules: what every write must satisfy, checked before anything is sent or committed.

/**
 * Rejects oversized batches, batches that would store one business's or stream's rows under
 * another, and a whole checkpoint passed where its position belongs (an object literal of
 * {@link import('./sink.js').Checkpoint} type-checks as JSON, and would be stored as the position).
 */
function assertValidBatch(batch: Batch, position: JsonObject, maxBatchSize: number): void {
  if ('recordsSynced' in position && 'position' in position && 'businessId' in position) {
    throw new InvalidBatchError('write takes the next checkpoint position, not a whole checkpoint: pass checkpoint.position');
  }
  if (batch.records.length > maxBatchSize) {
    throw new InvalidBatchError(`batch of ${batch.records.length} records exceeds maxBatchSize ${maxBatchSize}`);
  }
  const foreign = batch.records.find((record) => record.businessId !== batch.businessId);
  if (foreign !== undefined) {
    throw new InvalidBatchError(`record ${foreign.id} of business ${foreign.businessId} in a batch of ${batch.businessId}`);
  }
  const foreignLetter = batch.deadLetters.find((letter) => letter.businessId !== batch.businessId || letter.stream !== batch.table.stream);
  if (foreignLetter !== undefined) {
    throw new InvalidBatchError(`dead letter of ${foreignLetter.businessId}/${foreignLetter.stream} in a batch of ${batch.businessId}/${batch.table.stream}`);
  }
}

/**
 * One record per id, the later copy winning: a page can repeat an id (an overlap, an update in
 * flight) and targets refuse one statement or request touching a key twice. The one place where
 * repeated ids are collapsed, for every connector. A page without repeats (nearly all) costs one
 * set insertion per record and is returned as it is.
 */
function lastPerId(records: readonly SyncRecord[]): readonly SyncRecord[] {
  const ids = new Set<string>();
  for (let index = 0; index < records.length; index++) {
    ids.add((records[index] as SyncRecord).id);
    if (ids.size === index + 1) continue;
    const byId = new Map<string, SyncRecord>();
    for (const record of records) {
      byId.delete(record.id);
      byId.set(record.id, record);
    }
    return [...byId.values()];
  }
  return records;
}
