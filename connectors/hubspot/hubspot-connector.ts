import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Batch, Checkpoint, DeadLetter, Sink, StreamTable, SyncRecord, WriteResult } from '../../src/sink.js';
import type { SinkConnector } from '../sink-connector.js';
import { associateCallsWithContacts, type CallContactPair } from './associations.js';
import { HubSpotBudget } from './budget.js';
import type { HubSpotConfig } from './config.js';
import { ContactResolver } from './contacts.js';
import { isHubSpotError } from './errors.js';
import { HubSpotHttp } from './http-client.js';
import { mapRecordToCall, resolveMapping, supportedStreams, type CallPropertyMapping } from './mapping.js';
import { recordPropertyValue, ensureRecordProperty } from './record-property.js';
import { systemClock, type Clock } from './rolling-window.js';
import { ensureUniqueProperty } from './unique-property.js';
import { upsertCalls, type CallInput } from './upsert.js';

export interface HubSpotConnectorOptions {
  readonly config: HubSpotConfig;
  /** SQL sink that keeps checkpoints, dead letters and a copy of what HubSpot acknowledged. Closed with the connector. */
  readonly stateSink: Sink;
  readonly dispatcher: Dispatcher;
  /** Close the dispatcher on `close()` (true when the connector created it). */
  readonly ownsDispatcher: boolean;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
}

interface Pending {
  readonly record: SyncRecord;
  readonly contactNumber: string | null;
}

/**
 * Calls and voicemails → HubSpot Calls engagements, upserted by a unique custom property, then
 * associated with the caller's contact. After HubSpot acknowledges, one state-sink write stores
 * the acknowledged records' local copy, the dead letters and the checkpoint in one transaction.
 */
export class HubSpotConnector implements SinkConnector {
  readonly type = 'hubspot';
  readonly capabilities = { transactionalCheckpoint: false, maxBatchSize: 100 } as const;
  readonly checkpoints: Sink['checkpoints'];
  readonly deadLetters: Sink['deadLetters'];
  readonly #options: HubSpotConnectorOptions;
  readonly #http: HubSpotHttp;
  readonly #contacts: ContactResolver;
  readonly #mapping: CallPropertyMapping;
  #propertiesReady: Promise<void> | undefined;

  constructor(options: HubSpotConnectorOptions) {
    this.#options = options;
    const { config, logger } = options;
    const clock = options.clock ?? systemClock;
    this.checkpoints = options.stateSink.checkpoints;
    this.deadLetters = options.stateSink.deadLetters;
    this.#mapping = resolveMapping(config.mapping);
    this.#http = new HubSpotHttp({
      baseUrl: config.baseUrl,
      token: config.token,
      dispatcher: options.dispatcher,
      budget: new HubSpotBudget(config.limits, clock),
      retry: config.retry,
      logger,
      clock,
      ...(options.random === undefined ? {} : { random: options.random }),
    });
    this.#contacts = new ContactResolver({ http: this.#http, createContacts: config.createContacts, clock, logger });
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    await this.#options.stateSink.prepare(tables);
    await this.#ensureProperties();
    const unsupported = tables.filter((table) => !supportedStreams.has(table.stream)).map((table) => table.stream);
    if (unsupported.length > 0) {
      this.#options.logger.warn({ streams: unsupported }, 'hubspot does not sync these streams; their records become dead letters');
    }
  }

  async write(batch: Batch, checkpoint: Checkpoint): Promise<WriteResult> {
    await this.#ensureProperties();
    const { config } = this.#options;
    const stream = batch.table.stream;
    const deadLetters: DeadLetter[] = [...batch.deadLetters];
    const inputs = new Map<string, CallInput<Pending>>();
    for (const record of batch.records) {
      const mapped = mapRecordToCall(record, stream, config.uniqueProperty, this.#mapping);
      if (!mapped.ok) {
        deadLetters.push({ businessId: batch.businessId, stream, reason: mapped.reason, raw: record.raw });
        continue;
      }
      const properties = config.recordProperty === null ? mapped.properties : { ...mapped.properties, [config.recordProperty]: recordPropertyValue(record) };
      // HubSpot refuses a batch with one id twice; the later copy is the newer one.
      inputs.delete(mapped.uniqueValue);
      inputs.set(mapped.uniqueValue, { uniqueValue: mapped.uniqueValue, properties, item: { record, contactNumber: mapped.contactNumber } });
    }
    const outcome = await upsertCalls(this.#http, config.uniqueProperty, [...inputs.values()]);
    for (const { input, reason } of outcome.rejected) {
      deadLetters.push({ businessId: batch.businessId, stream, reason, raw: input.item.record.raw });
    }
    if (config.associateContacts) await this.#associate(outcome.stored.map(({ input, hubspotId }) => ({ callId: hubspotId, number: input.item.contactNumber })));
    const records = outcome.stored.map(({ input }) => input.item.record);
    return this.#options.stateSink.write({ businessId: batch.businessId, table: batch.table, records, deadLetters }, checkpoint);
  }

  async ping(): Promise<void> {
    await this.#options.stateSink.ping();
    await this.#http.send('GET', `/crm/v3/properties/calls/${encodeURIComponent(this.#options.config.uniqueProperty)}`);
  }

  async close(): Promise<void> {
    await this.#options.stateSink.close();
    if (this.#options.ownsDispatcher) await this.#options.dispatcher.close();
  }

  /** Once per process; a failed attempt leaves the next call to try again. */
  #ensureProperties(): Promise<void> {
    this.#propertiesReady ??= (async () => {
      const { config, logger } = this.#options;
      const unique = await ensureUniqueProperty(this.#http, config.uniqueProperty);
      if (unique === 'created') logger.info({ property: config.uniqueProperty }, 'hubspot unique call property created');
      if (config.recordProperty !== null) await ensureRecordProperty(this.#http, config.recordProperty);
    })().catch((error: unknown) => {
      this.#propertiesReady = undefined;
      throw error;
    });
    return this.#propertiesReady;
  }

  async #associate(calls: readonly { callId: string; number: string | null }[]): Promise<void> {
    try {
      const resolved = await Promise.all(calls.map(async (call) => ({ call, contactId: call.number === null ? null : await this.#contacts.resolve(call.number) })));
      const pairs: CallContactPair[] = [];
      for (const { call, contactId } of resolved) if (contactId !== null) pairs.push({ callId: call.callId, contactId });
      await associateCallsWithContacts(this.#http, pairs);
    } catch (error) {
      // The calls are stored; a refused search or association must not hold the stream back forever.
      if (!isHubSpotError(error) || !['invalid', 'conflict', 'not_found'].includes(error.kind)) throw error;
      this.#options.logger.warn({ err: error.message, calls: calls.length }, 'hubspot refused a contact search or association; calls kept without it');
    }
  }
}
