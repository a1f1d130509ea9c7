import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Batch, Checkpoint, DeadLetter, Sink, StreamTable, WriteResult } from '../../src/sink.js';
import type { SinkConnector } from '../sink-connector.js';
import type { WebhookConfig } from './config.js';
import { deliver } from './deliver.js';
import { isoSeconds } from '../../src/normalize/index.js';
import { buildDelivery } from './payload.js';
import { pingReceiver } from './ping-receiver.js';

/** Everything the connector needs besides its config; tests replace time, randomness and sleeping. */
export interface WebhookRuntime {
  readonly logger: Logger;
  readonly dispatcher: Dispatcher;
  /** Closed with the sink; undefined when the dispatcher belongs to the caller. */
  readonly ownedDispatcher: Dispatcher | undefined;
  /** Checkpoints and dead letters live here (a SQL sink); closed with the webhook sink. */
  readonly stateSink: Sink;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly newBatchId: () => string;
}

/**
 * POSTs each batch as signed JSON and, once the receiver acknowledges it (or refuses it for good,
 * turning its records into dead letters), stores dead letters and checkpoint in the state sink in
 * one transaction. Not transactional with the receiver: at-least-once delivery, made idempotent
 * for the receiver by the `Idempotency-Key` header.
 */
export class WebhookConnector implements SinkConnector {
  readonly type = 'webhook';
  readonly capabilities: { transactionalCheckpoint: false; maxBatchSize: number };
  readonly #config: WebhookConfig;
  readonly #runtime: WebhookRuntime;

  constructor(config: WebhookConfig, runtime: WebhookRuntime) {
    this.#config = config;
    this.#runtime = runtime;
    this.capabilities = { transactionalCheckpoint: false, maxBatchSize: config.batchSize };
  }

  get checkpoints(): Sink['checkpoints'] {
    return this.#runtime.stateSink.checkpoints;
  }

  get deadLetters(): Sink['deadLetters'] {
    return this.#runtime.stateSink.deadLetters;
  }

  prepare(tables: readonly StreamTable[]): Promise<void> {
    return this.#runtime.stateSink.prepare(tables);
  }

  async write(batch: Batch, checkpoint: Checkpoint): Promise<WriteResult> {
    const { stateSink } = this.#runtime;
    const rejected: DeadLetter[] = [];
    let written = 0;
    let unchanged = 0;
    if (batch.records.length > 0) {
      const outcome = await this.#deliver(batch);
      if (outcome.delivered) ({ written, unchanged } = outcome.acknowledgement);
      else {
        const { reason } = outcome;
        for (const record of batch.records) rejected.push({ businessId: batch.businessId, stream: batch.table.stream, reason, raw: record.raw });
      }
    }
    const before = written > 0 ? await stateSink.checkpoints.load(checkpoint.businessId, checkpoint.stream) : undefined;
    const deadLetters = [...batch.deadLetters, ...rejected];
    await stateSink.write({ businessId: batch.businessId, table: batch.table, records: [], deadLetters }, checkpoint);
    if (written > 0) {
      // The state sink counts rows it stored itself (none here); the receiver's count is added
      // afterwards, outside that transaction: a crash in between only undercounts this statistic.
      await stateSink.checkpoints.save({ ...checkpoint, recordsSynced: (before?.recordsSynced ?? 0) + written });
    }
    return { written, unchanged, deadLettered: deadLetters.length };
  }

  ping(): Promise<void> {
    return Promise.all([
      this.#runtime.stateSink.ping(),
      pingReceiver(this.#config.url, this.#config.timeoutMs, this.#runtime.dispatcher),
    ]).then(() => undefined);
  }

  async close(): Promise<void> {
    const results = await Promise.allSettled([this.#runtime.stateSink.close(), this.#runtime.ownedDispatcher?.close()]);
    const failure = results.find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  #deliver(batch: Batch): ReturnType<typeof deliver> {
    const { logger, dispatcher, now, sleep, random, newBatchId } = this.#runtime;
    const delivery = buildDelivery(batch, newBatchId(), isoSeconds(now()));
    return deliver(delivery, {
      url: this.#config.url,
      secret: this.#config.secret,
      timeoutMs: this.#config.timeoutMs,
      headers: this.#config.headers ?? {},
      retry: this.#config.retry,
      dispatcher,
      now,
      sleep,
      random,
      logger: logger.child({ businessId: batch.businessId, stream: batch.table.stream }),
    });
  }
}

export const defaultBatchId = (): string => randomUUID();
