import type { Logger } from 'pino';
import type {
  Batch,
  CheckpointStore,
  DeadLetter,
  DeadLetterStore,
  JsonObject,
  Sink,
  SinkCapabilities,
  StoredRecords,
  StreamTable,
  SyncRecord,
  WriteResult,
} from '../src/sink.js';
import { assertValidBatch, lastPerId } from './batch-rules.js';
import { defaultCapabilities, type StateStore, type Target, type TargetOutcome } from './parts.js';
import { SinkClosedError } from './sink-errors.js';
import { unstorableReason } from './storable.js';

/** What a connector hands the managed sink: its state store and, unless the store is the target (SQL), its target. */
export interface SinkParts {
  /** Connector type as in config (`sqlite`, `hubspot`, …); used in logs and errors. */
  readonly type: string;
  readonly store: StateStore;
  readonly target?: Target;
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
    this.capabilities = Object.freeze({ ...defaultCapabilities, ...parts.target?.capabilities });
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
    return this.#run('write', async () => {
      assertValidBatch(batch, position, this.capabilities.maxBatchSize);
      const { storable, unstorable } = splitStorable(batch, lastPerId(batch.records));
      const { store, target } = this.#parts;
      const deadLetters = [...batch.deadLetters, ...unstorable];
      let result: WriteResult;
      if (target === undefined || !writes(target, batch.table)) {
        result = await store.commit({ ...batch, records: storable, deadLetters }, position);
      } else {
        const outcome = storable.length === 0 ? { stored: [], rejected: [] } : await this.#send(target, { ...batch, records: storable, deadLetters: [] });
        const committed = { ...batch, records: outcome.stored, deadLetters: [...deadLetters, ...outcome.rejected] };
        result = await store.commit(committed, position, outcome.counts);
        if (outcome.notes !== undefined && outcome.notes.length > 0) result = { ...result, notes: outcome.notes };
      }
      const refused = result.deadLettered - batch.deadLetters.length;
      const context = { businessId: batch.businessId, stream: batch.table.stream, ...result };
      if (refused > 0) this.#logger.warn(context, `${this.#parts.type} could not store ${refused} record(s); kept as dead letters`);
      else this.#logger.debug(context, 'batch written');
      return result;
    }, [batch.table]);
  }

  async #send(target: Target, batch: Batch): Promise<TargetOutcome> {
    const revived = await this.#parts.store.records.deletedAmong(batch.businessId, batch.table, batch.records.map((record) => record.id));
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
    const pending = (async () => body())();
    this.#inFlight.add(pending);
    const forget = (): void => void this.#inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
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

/** Records no store can keep as received become dead letters naming the problem; the rest go on. */
function splitStorable(batch: Batch, records: readonly SyncRecord[]): { storable: readonly SyncRecord[]; unstorable: DeadLetter[] } {
  let unstorable: DeadLetter[] | undefined;
  const storable: SyncRecord[] = [];
  for (const record of records) {
    const reason = unstorableReason(record);
    if (reason === undefined) storable.push(record);
    else (unstorable ??= []).push({ businessId: batch.businessId, stream: batch.table.stream, reason, raw: record.raw });
  }
  return unstorable === undefined ? { storable: records, unstorable: [] } : { storable, unstorable };
}

/** Whether the target writes this stream; the others are kept by the state store alone. */
function writes(target: Target, table: StreamTable): boolean {
  return target.writes === undefined || target.writes.has(table.stream);
}

/** A table with added columns counts as new, so `prepare` gets the chance to add them. */
function tableKey(table: StreamTable): string {
  return `${table.table}(${table.columns.map((column) => `${column.name} ${column.type}`).join(',')})`;
}
