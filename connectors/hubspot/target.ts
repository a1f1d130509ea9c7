import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Batch, DeadLetter, SinkCapabilities, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { CALL_STREAMS, callKey, directionDecidedNote, archivedLinksOfBatch, TrackedNumbers, type ArchivedLinks } from '../crm/index.js';
import type { StateStoreRecords, Target, TargetOutcome } from '../../src/sink/parts.js';
import { archiveCalls } from './archive.js';
import { associateCallsWithContacts, type CallContactPair, type FailedPair } from './associations.js';
import { HubSpotBudget, systemClock, type Clock } from './budget.js';
import type { HubSpotConfig } from './config.js';
import { ContactResolver } from './contacts.js';
import { isHubSpotError } from './errors.js';
import { HubSpotHttp } from './client.js';
import { mapRecordToCall, resolveMapping, type CallPropertyMapping } from './mapping.js';
import { recordPropertyValue, ensureRecordProperty } from './record-property.js';
import { ensureUniqueProperty } from './unique-property.js';
import { explainArchivedHolders, upsertCalls, type CallInput } from './upsert.js';

interface HubSpotTargetOptions {
  readonly config: HubSpotConfig;
  readonly dispatcher: Dispatcher;
  /** Close the dispatcher on `close()` (true when the connector created it). */
  readonly ownsDispatcher: boolean;
  readonly logger: Logger;
  /** The state store's records, where the business's tracked numbers (the `numbers` stream) are read. */
  readonly records: Pick<StateStoreRecords, 'columnValues'>;
  /** Archived recordings' links, sent instead of upstream's; closed with the target. @defaultValue none */
  readonly archivedLinks?: ArchivedLinks;
  readonly clock?: Clock;
  readonly random?: () => number;
}

/** Association attempts per pair (the first and two retries) before the call becomes a dead letter. */
const ASSOCIATION_ROUNDS = 3;
const NO_NUMBERS: ReadonlySet<string> = new Set();
const NO_CONTACTS: ReadonlyMap<string, string | null> = new Map();
/** HubSpot refused the request itself: retrying the same request cannot help. */
const REFUSALS: ReadonlySet<string> = new Set(['invalid', 'conflict', 'not_found']);

interface Pending {
  readonly record: SyncRecord;
  readonly contactNumber: string | null;
}

/**
 * Calls and voicemails → HubSpot Calls engagements, upserted by a unique custom property, then
 * associated with the contact of the customer's number (the CRM rule: the number that is not one
 * of the business's tracked numbers); deletion is HubSpot's archive. The state store keeps the
 * checkpoint, dead letters, a copy of what HubSpot acknowledged and the streams HubSpot does not
 * take (the tracked numbers).
 */
export class HubSpotTarget implements Target {
  readonly capabilities: Partial<SinkCapabilities>;
  readonly writes = CALL_STREAMS;
  readonly #options: HubSpotTargetOptions;
  readonly #http: HubSpotHttp;
  readonly #contacts: ContactResolver;
  readonly #mapping: CallPropertyMapping;
  readonly #clock: Clock;
  readonly #tracked: TrackedNumbers;
  #propertiesReady: Promise<void> | undefined;

  constructor(options: HubSpotTargetOptions) {
    this.#options = options;
    this.capabilities = { maxBatchSize: 100, ...(options.archivedLinks === undefined ? {} : { archivedRecordingLinks: true }) };
    const { config, logger } = options;
    const clock = options.clock ?? systemClock;
    this.#clock = clock;
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
    this.#tracked = new TrackedNumbers({ records: options.records, configured: config.trackedNumbers });
    this.#contacts = new ContactResolver({ http: this.#http, createContacts: config.createContacts, clock, logger });
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    this.#tracked.prepare(tables);
    await this.#ensureProperties();
  }

  async send(batch: Batch): Promise<TargetOutcome> {
    await this.#ensureProperties();
    const { config } = this.#options;
    const stream = batch.table.stream;
    const rejected: DeadLetter[] = [];
    const inputs: CallInput<Pending>[] = [];
    // Read at every batch: numbers synced a moment ago (first in the run) or by another worker count.
    const tracked = config.associateContacts ? await this.#tracked.of(batch.businessId) : NO_NUMBERS;
    const isTracked = (number: string): boolean => tracked.has(number);
    const links = await archivedLinksOfBatch(this.#options.archivedLinks, batch);
    let byDirection = 0;
    for (const record of batch.records) {
      const mapped = mapRecordToCall(record, stream, config.uniqueProperty, this.#mapping, isTracked, links.get(record.id) ?? null);
      if (mapped.ok && mapped.partyBasis === 'direction' && config.associateContacts) byDirection += 1;
      if (!mapped.ok) {
        rejected.push({ businessId: batch.businessId, stream, reason: mapped.reason, raw: record.raw });
        continue;
      }
      const properties = config.recordProperty === null ? mapped.properties : { ...mapped.properties, [config.recordProperty]: recordPropertyValue(record) };
      inputs.push({ uniqueValue: mapped.uniqueValue, properties, item: { record, contactNumber: mapped.contactNumber } });
    }
    const numbers = config.associateContacts ? inputs.flatMap((input) => (input.item.contactNumber === null ? [] : [input.item.contactNumber])) : [];
    // The contact lookup does not depend on the upsert: both go out at once.
    const lookUp = numbers.length === 0 ? Promise.resolve(NO_CONTACTS) : this.#lookUp(numbers);
    const [outcome, contacts] = await Promise.all([upsertCalls(this.#http, config.uniqueProperty, inputs), lookUp]);
    for (const { input, reason } of await explainArchivedHolders(this.#http, config.uniqueProperty, outcome.rejected)) {
      rejected.push({ businessId: batch.businessId, stream, reason, raw: input.item.record.raw });
    }
    if (config.associateContacts) {
      for (const { item, reason } of await this.#associate(outcome.stored, contacts)) {
        rejected.push({ businessId: batch.businessId, stream, reason, raw: item.record.raw });
      }
    }
    const note = directionDecidedNote(byDirection);
    return { stored: outcome.stored.map(({ input }) => input.item.record), rejected, ...(note === undefined ? {} : { notes: [note] }) };
  }

  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    await this.#ensureProperties();
    const { uniqueProperty } = this.#options.config;
    const archived = await archiveCalls(
      this.#http,
      uniqueProperty,
      ids.map((id) => callKey(businessId, table.stream, id)),
    );
    this.#options.logger.info({ businessId, stream: table.stream, requested: ids.length, archived }, 'hubspot calls archived');
  }

  async ping(): Promise<void> {
    await this.#http.send('GET', `/crm/v3/properties/calls/${encodeURIComponent(this.#options.config.uniqueProperty)}`);
  }

  async close(): Promise<void> {
    await this.#options.archivedLinks?.close();
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

  /** Contact ids by number; a refused search (400/404/409) answers with its reason instead, a 429 or 5xx throws. */
  async #lookUp(numbers: readonly string[]): Promise<Map<string, string | null> | string> {
    try {
      return await this.#contacts.resolveAll(numbers);
    } catch (error) {
      if (!isHubSpotError(error) || !REFUSALS.has(error.kind)) throw error;
      return `hubspot: call stored, but the contact search was refused: ${error.hubspotMessage ?? error.message}`;
    }
  }

  /**
   * Associates each stored call with its caller's contact; returns the calls left without their
   * association (HubSpot refused it, or the search did), with the reason, for dead letters.
   */
  async #associate(
    stored: readonly { input: CallInput<Pending>; hubspotId: string }[],
    contacts: ReadonlyMap<string, string | null> | string,
  ): Promise<{ item: Pending; reason: string }[]> {
    const withNumber = stored.filter(({ input }) => input.item.contactNumber !== null);
    if (typeof contacts === 'string') return withNumber.map(({ input }) => ({ item: input.item, reason: contacts }));
    const byPair = new Map<string, Pending[]>();
    const pairs: CallContactPair[] = [];
    for (const { input, hubspotId } of withNumber) {
      const contactId = contacts.get(input.item.contactNumber ?? '') ?? null;
      if (contactId === null) continue;
      const key = `${hubspotId}>${contactId}`;
      if (!byPair.has(key)) pairs.push({ callId: hubspotId, contactId });
      byPair.set(key, [...(byPair.get(key) ?? []), input.item]);
    }
    let failed: FailedPair[];
    try {
      failed = await associateCallsWithContacts(pairs, {
        http: this.#http,
        clock: this.#clock,
        rounds: ASSOCIATION_ROUNDS,
        backoff: this.#options.config.retry,
        ...(this.#options.random === undefined ? {} : { random: this.#options.random }),
      });
    } catch (error) {
      if (!isHubSpotError(error) || !REFUSALS.has(error.kind)) throw error;
      failed = pairs.map((pair) => ({ ...pair, reason: error.hubspotMessage ?? error.message }));
    }
    const left: { item: Pending; reason: string }[] = [];
    for (const pair of failed) {
      for (const item of byPair.get(`${pair.callId}>${pair.contactId}`) ?? []) {
        // The contact may be gone: the next lookup of this number asks HubSpot again.
        if (item.contactNumber !== null) this.#contacts.forget(item.contactNumber);
        left.push({ item, reason: `hubspot: call ${pair.callId} stored, but not associated with contact ${pair.contactId}: ${pair.reason}` });
      }
    }
    if (left.length > 0) this.#options.logger.warn({ calls: left.length }, 'hubspot calls stored without their contact association; kept as dead letters');
    return left;
  }
}
