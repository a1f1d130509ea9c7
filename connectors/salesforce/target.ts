import type { Logger } from 'pino';
import type { Batch, CheckpointStore, DeadLetter, SinkCapabilities, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import {
  CALL_STREAMS,
  callDirection,
  callKey,
  directionDecidedNote,
  archivedLinksOfBatch,
  otherParty,
  TrackedNumbers,
  type ArchivedLinks,
} from '../crm/index.js';
import type { StateStoreRecords, Target, TargetOutcome } from '../../src/sink/parts.js';
import type { SalesforceConfig } from './config.js';
import { deleteTasks } from './delete-tasks.js';
import type { SalesforceHttp } from './client.js';
import { mapRecordToTask, type TaskMappingOptions } from './mapping.js';
import { checkTaskFields, type TaskFieldFacts } from './task-fields.js';
import { upsertTasks, type TaskInput } from './upsert.js';
import { WhoResolver } from './who.js';

/** An answer from Salesforce younger than this proves it reachable: a ping sends no request. */
const PING_FRESH_MS = 60_000;

interface SalesforceTargetOptions {
  readonly config: SalesforceConfig;
  readonly http: SalesforceHttp;
  /** The state store's records (tracked numbers) and checkpoints (the Leads callsync created). */
  readonly store: { readonly records: Pick<StateStoreRecords, 'columnValues'>; readonly checkpoints: CheckpointStore };
  readonly logger: Logger;
  readonly clock: { now(): number; sleep(ms: number): Promise<void> };
  readonly random?: () => number;
  /** Archived recordings' links, sent instead of upstream's (the sink's `release` closes it). @defaultValue none */
  readonly archivedLinks?: ArchivedLinks;
  /** Releases the HTTP dispatcher when the connector made it. */
  readonly release: () => Promise<void>;
}

/**
 * Calls and voicemails → Salesforce Tasks, upserted by the external id field, each with the
 * Contact or Lead of the call's other party as `WhoId`. Deletion deletes or marks the Task
 * (`onDelete`). The state store keeps checkpoints, dead letters, a copy of what Salesforce
 * acknowledged, the tracked numbers (the `numbers` stream) and the Leads callsync created.
 */
export class SalesforceTarget implements Target {
  /** Five upserts of 200 in one composite request, and one composite of phone queries, per write: fewest API requests per record. */
  readonly capabilities: Partial<SinkCapabilities>;
  readonly writes = CALL_STREAMS;
  readonly #options: SalesforceTargetOptions;
  readonly #mapping: TaskMappingOptions;
  readonly #tracked: TrackedNumbers;
  readonly #who: WhoResolver | undefined;
  #fieldsChecked: Promise<TaskFieldFacts> | undefined;

  constructor(options: SalesforceTargetOptions) {
    this.#options = options;
    this.capabilities = { maxBatchSize: 1000, ...(options.archivedLinks === undefined ? {} : { archivedRecordingLinks: true }) };
    const { config } = options;
    this.#mapping = {
      externalIdField: config.externalIdField,
      status: config.status,
      recordingUrlField: config.recordingUrlField,
      recordField: config.recordField,
      deletedField: config.onDelete === 'mark' ? config.deletedField : null,
      fields: config.mapping?.fields ?? {},
    };
    this.#tracked = new TrackedNumbers({ records: options.store.records, configured: config.trackedNumbers });
    this.#who =
      config.who === null
        ? undefined
        : new WhoResolver({
            http: options.http,
            apiVersion: config.apiVersion,
            who: config.who,
            ledger: options.store.checkpoints,
            clock: options.clock,
            logger: options.logger,
          });
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    this.#tracked.prepare(tables);
    await this.#checkFields();
  }

  async send(batch: Batch): Promise<TargetOutcome> {
    const { createOnly } = await this.#checkFields();
    const stream = batch.table.stream;
    const rejected: DeadLetter[] = [];
    const tracked = await this.#tracked.of(batch.businessId);
    const links = await archivedLinksOfBatch(this.#options.archivedLinks, batch);
    let byDirection = 0;
    const inputs: { record: SyncRecord; fields: Record<string, string | number | boolean>; externalId: string; party: string | null }[] = [];
    for (const record of batch.records) {
      const direction = callDirection(stream, record.fields);
      const party = otherParty({ from: record.fields.from_number, to: record.fields.to_number, direction }, (number) => tracked.has(number));
      const mapped = mapRecordToTask(record, stream, this.#mapping, party.number, links.get(record.id) ?? null);
      if (!mapped.ok) {
        rejected.push({ businessId: batch.businessId, stream, reason: mapped.reason, raw: record.raw });
        continue;
      }
      // Without a Who lookup the customer's number decides nothing, so nothing was guessed.
      if (party.basis === 'direction' && this.#who !== undefined) byDirection += 1;
      inputs.push({ record, fields: { ...mapped.fields }, externalId: mapped.externalId, party: party.number });
    }
    if (this.#who !== undefined) {
      const whos = await this.#who.resolveAll(inputs.flatMap((input) => (input.party === null ? [] : [input.party])));
      for (const input of inputs) {
        const who = input.party === null ? null : (whos.get(input.party) ?? null);
        if (who !== null) input.fields.WhoId = who;
      }
    }
    const { config, http, clock, random } = this.#options;
    const outcome = await upsertTasks(
      inputs.map((input): TaskInput<SyncRecord> => ({ externalId: input.externalId, fields: input.fields, item: input.record })),
      {
        http,
        apiVersion: config.apiVersion,
        externalIdField: config.externalIdField,
        retry: config.retry,
        sleep: (ms) => clock.sleep(ms),
        createOnly,
        ...(random === undefined ? {} : { random }),
      },
    );
    for (const { input, reason } of outcome.rejected) {
      // A Who deleted since it was cached: the next lookup of the number asks Salesforce again.
      if (reason.includes('INVALID_CROSS_REFERENCE_KEY')) this.#forgetWhoOf(input.item, inputs);
      rejected.push({ businessId: batch.businessId, stream, reason, raw: input.item.raw });
    }
    const note = directionDecidedNote(byDirection);
    return { stored: outcome.stored.map((input) => input.item), rejected, ...(note === undefined ? {} : { notes: [note] }) };
  }

  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    await this.#checkFields();
    const { config, http, clock, logger } = this.#options;
    const affected = await deleteTasks(
      http,
      config,
      ids.map((id) => callKey(businessId, table.stream, id)),
      (ms) => clock.sleep(ms),
    );
    logger.info({ businessId, stream: table.stream, requested: ids.length, affected, onDelete: config.onDelete }, 'salesforce tasks deleted upstream applied');
  }

  /**
   * Resolves when Salesforce answered within {@link PING_FRESH_MS}, else asks `/limits`: every
   * request counts against the org's allocation, and a readiness probe every few seconds would
   * spend thousands a day to learn what the writes already show.
   */
  async ping(): Promise<void> {
    const { http, clock } = this.#options;
    const answeredAt = http.answeredAt;
    if (answeredAt !== undefined && clock.now() - answeredAt < PING_FRESH_MS) return;
    await http.send('GET', '/limits');
  }

  async close(): Promise<void> {
    await this.#options.release();
  }

  /** Once per process; a failed attempt leaves the next call to try again. */
  #checkFields(): Promise<TaskFieldFacts> {
    this.#fieldsChecked ??= checkTaskFields(this.#options.http, this.#options.config).catch((error: unknown) => {
      this.#fieldsChecked = undefined;
      throw error;
    });
    return this.#fieldsChecked;
  }

  #forgetWhoOf(record: SyncRecord, inputs: readonly { record: SyncRecord; party: string | null }[]): void {
    const party = inputs.find((input) => input.record === record)?.party;
    if (party !== null && party !== undefined) this.#who?.forget(party);
  }
}
