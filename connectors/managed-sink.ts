import type { Logger } from 'pino';
import type {
  Batch,
  Checkpoint,
  CheckpointStore,
  DeadLetterStore,
  Sink,
  SinkCapabilities,
  StreamTable,
  WriteResult,
} from '../src/sink.js';
import { withCapabilityDefaults } from './capabilities.js';
import type { SinkConnector } from './sink-connector.js';
import { SinkClosedError } from './sink-errors.js';
import { lastPerId } from './last-per-id.js';
import { assertValidBatch } from './validate-batch.js';

/**
 * Owns the lifecycle every connector shares, so connectors hold only their own I/O:
 * migrations run once (and again after a failed attempt), a table is prepared before its first
 * write, every operation after `close()` rejects with {@link SinkClosedError}, `close()` waits
 * for in-flight operations and is idempotent, and batches are checked against the contract.
 */
export class ManagedSink implements Sink {
  readonly capabilities: SinkCapabilities;
  readonly checkpoints: CheckpointStore;
  readonly deadLetters: DeadLetterStore;
  readonly #connector: SinkConnector;
  readonly #logger: Logger;
  readonly #prepared = new Set<string>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #migrated = false;
  #prepareChain: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(connector: SinkConnector, logger: Logger) {
    this.#connector = connector;
    this.#logger = logger.child({ sink: connector.type });
    this.capabilities = withCapabilityDefaults(connector.capabilities);
    const checkpoints = connector.checkpoints;
    const deadLetters = connector.deadLetters;
    this.checkpoints = {
      load: (businessId, stream) => this.#run('load a checkpoint', () => checkpoints.load(businessId, stream)),
      save: (checkpoint) => this.#run('save a checkpoint', () => checkpoints.save(checkpoint)),
    };
    this.deadLetters = {
      list: (filter) => this.#run('list dead letters', () => deadLetters.list(filter)),
      remove: (ids) => this.#run('remove dead letters', () => deadLetters.remove(ids)),
    };
  }

  prepare(tables: readonly StreamTable[]): Promise<void> {
    return this.#track('prepare', () => this.#ensurePrepared(tables));
  }

  write(batch: Batch, checkpoint: Checkpoint): Promise<WriteResult> {
    return this.#run('write', async () => {
      assertValidBatch(batch, checkpoint, this.capabilities.maxBatchSize);
      const result = await this.#connector.write(lastPerId(batch), checkpoint);
      const rejected = result.deadLettered - batch.deadLetters.length;
      const context = { businessId: batch.businessId, stream: batch.table.stream, ...result };
      if (rejected > 0) this.#logger.warn(context, `${this.#connector.type} rejected ${rejected} record(s); kept as dead letters`);
      else this.#logger.debug(context, 'batch written');
      return result;
    }, [batch.table]);
  }

  ping(): Promise<void> {
    return this.#track('ping', () => this.#connector.ping());
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#inFlight]);
      await this.#connector.close();
      this.#logger.debug('sink closed');
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
    if (this.#closing !== undefined) return Promise.reject(new SinkClosedError(this.#connector.type, operation));
    // A connector that throws synchronously still yields a rejected promise, never a throw.
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
      await this.#connector.prepare(todo);
      this.#migrated = true;
      for (const table of todo) this.#prepared.add(tableKey(table));
      this.#logger.info({ tables: todo.map((table) => table.table) }, 'sink prepared');
    });
    this.#prepareChain = attempt.catch(() => undefined);
    return attempt;
  }
}

/** A table with added columns counts as new, so `prepare` gets the chance to add them. */
function tableKey(table: StreamTable): string {
  return `${table.table}(${table.columns.map((column) => `${column.name} ${column.type}`).join(',')})`;
}
