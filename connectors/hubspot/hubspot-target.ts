import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Batch, DeadLetter, StreamTable, SyncRecord } from '../../src/sink.js';
import type { Target, TargetOutcome } from '../parts.js';
import { archiveCalls } from './archive.js';
import { associateCallsWithContacts, type CallContactPair } from './associations.js';
import { HubSpotBudget } from './budget.js';
import type { HubSpotConfig } from './config.js';
import { ContactResolver } from './contacts.js';
import { isHubSpotError } from './errors.js';
import { HubSpotHttp } from './http-client.js';
import { callUniqueValue, mapRecordToCall, resolveMapping, supportedStreams, type CallPropertyMapping } from './mapping.js';
import { recordPropertyValue, ensureRecordProperty } from './record-property.js';
import { systemClock, type Clock } from './rolling-window.js';
import { ensureUniqueProperty } from './unique-property.js';
import { upsertCalls, type CallInput } from './upsert.js';

export interface HubSpotTargetOptions {
  readonly config: HubSpotConfig;
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
 * associated with the caller's contact; deletion is HubSpot's archive. The state store keeps the
 * checkpoint, dead letters and a copy of what HubSpot acknowledged.
 */
export class HubSpotTarget implements Target {
  readonly capabilities = { maxBatchSize: 100 } as const;
  readonly #options: HubSpotTargetOptions;
  readonly #http: HubSpotHttp;
  readonly #contacts: ContactResolver;
  readonly #mapping: CallPropertyMapping;
  #propertiesReady: Promise<void> | undefined;

  constructor(options: HubSpotTargetOptions) {
    this.#options = options;
    const { config, logger } = options;
    const clock = options.clock ?? systemClock;
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
    await this.#ensureProperties();
    const unsupported = tables.filter((table) => !supportedStreams.has(table.stream)).map((table) => table.stream);
    if (unsupported.length > 0) {
      this.#options.logger.warn({ streams: unsupported }, 'hubspot does not sync these streams; their records become dead letters');
    }
  }

  async send(batch: Batch): Promise<TargetOutcome> {
    await this.#ensureProperties();
    const { config } = this.#options;
    const stream = batch.table.stream;
    const rejected: DeadLetter[] = [];
    const inputs: CallInput<Pending>[] = [];
    for (const record of batch.records) {
      const mapped = mapRecordToCall(record, stream, config.uniqueProperty, this.#mapping);
      if (!mapped.ok) {
        rejected.push({ businessId: batch.businessId, stream, reason: mapped.reason, raw: record.raw });
        continue;
      }
      const properties = config.recordProperty === null ? mapped.properties : { ...mapped.properties, [config.recordProperty]: recordPropertyValue(record) };
      inputs.push({ uniqueValue: mapped.uniqueValue, properties, item: { record, contactNumber: mapped.contactNumber } });
    }
    const outcome = await upsertCalls(this.#http, config.uniqueProperty, inputs);
    for (const { input, reason } of outcome.rejected) {
      rejected.push({ businessId: batch.businessId, stream, reason, raw: input.item.record.raw });
    }
    if (config.associateContacts) await this.#associate(outcome.stored.map(({ input, hubspotId }) => ({ callId: hubspotId, number: input.item.contactNumber })));
    return { stored: outcome.stored.map(({ input }) => input.item.record), rejected };
  }

  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    if (!supportedStreams.has(table.stream)) return;
    await this.#ensureProperties();
    const { uniqueProperty } = this.#options.config;
    const archived = await archiveCalls(this.#http, uniqueProperty, ids.map((id) => callUniqueValue(businessId, table.stream, id)));
    this.#options.logger.info({ businessId, stream: table.stream, requested: ids.length, archived }, 'hubspot calls archived');
  }

  async ping(): Promise<void> {
    await this.#http.send('GET', `/crm/v3/properties/calls/${encodeURIComponent(this.#options.config.uniqueProperty)}`);
  }

  async close(): Promise<void> {
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
