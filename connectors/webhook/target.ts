import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { chunks } from '../../src/base/chunks.js';
import type { Batch, StreamTable } from '../../src/sink/sink.js';
import { isoSeconds } from '../../src/normalize/index.js';
import type { Target, TargetOutcome } from '../../src/sink/parts.js';
import type { WebhookConfig } from './config.js';
import { deliver } from './client.js';
import { buildDeletion, buildDelivery, type PreparedDelivery } from './mapping.js';
import { pingReceiver } from './ping-receiver.js';
import { WebhookDeliveryError } from './errors.js';

/** Everything the target needs besides its config; tests replace time, randomness and sleeping. */
export interface WebhookRuntime {
  readonly logger: Logger;
  readonly dispatcher: Dispatcher;
  /** Closed with the sink; undefined when the dispatcher belongs to the caller. */
  readonly ownedDispatcher: Dispatcher | undefined;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly newBatchId: () => string;
}

/**
 * POSTs each batch as signed JSON. A receiver's 2xx stores the records (its acknowledgement's
 * counts are the counts); a refusal for good turns the batch's records into dead letters. Not
 * transactional with the receiver: at-least-once, made idempotent by the `Idempotency-Key`.
 */
export class WebhookTarget implements Target {
  readonly capabilities: { maxBatchSize: number };
  readonly #config: WebhookConfig;
  readonly #runtime: WebhookRuntime;

  constructor(config: WebhookConfig, runtime: WebhookRuntime) {
    this.#config = config;
    this.#runtime = runtime;
    this.capabilities = { maxBatchSize: config.batchSize };
  }

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  async send(batch: Batch, revived: ReadonlySet<string>): Promise<TargetOutcome> {
    const { now, newBatchId } = this.#runtime;
    const outcome = await this.#deliver(batch, buildDelivery(batch, newBatchId(), isoSeconds(now()), revived));
    if (outcome.delivered) return { stored: batch.records, rejected: [], counts: outcome.acknowledgement };
    const { reason } = outcome;
    return { stored: [], rejected: batch.records.map((record) => ({ businessId: batch.businessId, stream: batch.table.stream, reason, raw: record.raw })) };
  }

  /** A `deleted` event (README: "Deletions"); a receiver refusing it fails the call, so nothing is marked. */
  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    const { now, newBatchId } = this.#runtime;
    for (const part of chunks(ids, this.#config.batchSize)) {
      const delivery = buildDeletion(businessId, table.stream, part, newBatchId(), isoSeconds(now()));
      const outcome = await this.#deliver({ businessId, table }, delivery);
      if (!outcome.delivered) {
        throw new WebhookDeliveryError(`receiver refused a deleted event: ${outcome.reason}`, { kind: 'invalid', attempts: outcome.attempts });
      }
    }
  }

  ping(): Promise<void> {
    const { timeoutMs, retry } = this.#config;
    const { dispatcher, logger, sleep, random, now } = this.#runtime;
    return pingReceiver(this.#config.url, { timeoutMs, retry, dispatcher, logger, sleep, random, now });
  }

  async close(): Promise<void> {
    await this.#runtime.ownedDispatcher?.close();
  }

  #deliver(batch: Pick<Batch, 'businessId' | 'table'>, delivery: PreparedDelivery): ReturnType<typeof deliver> {
    const { logger, dispatcher, now, sleep, random } = this.#runtime;
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
