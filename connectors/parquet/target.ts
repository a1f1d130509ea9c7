import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../src/normalize/index.js';
import { jsonText } from '../../src/sink/json-text.js';
import type { StateStoreRecords, Target, TargetOutcome } from '../../src/sink/parts.js';
import type { Batch, CheckpointStore, DeadLetter, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import type { ObjectStore } from '../object-storage/index.js';
import type { ParquetEncoder } from './client.js';
import { ParquetSinkError } from './errors.js';
import { dayOf, partitionPrefix, partName } from './keys.js';
import { deletionRow, recordRow, refusal, rowLayout, VERSION_COLUMN, type RowValue } from './mapping.js';
import { VersionClock } from './versions.js';

interface ParquetTargetOptions {
  readonly storage: ObjectStore;
  readonly encoder: ParquetEncoder;
  /** The state store's checkpoints: a file is named from the one its batch starts at. */
  readonly checkpoints: CheckpointStore;
  /** The state store's records: which ids are already marked deleted. */
  readonly records: StateStoreRecords;
  readonly maxRowsPerFile: number;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
}

const PARQUET_TYPE = 'application/vnd.apache.parquet';

/**
 * Writes each batch as one Parquet file of new version rows, and each deletion as one file of
 * deletion rows, into the storage; resolves only when the object is durable, so the managed sink
 * moves the checkpoint (in the state store) after it, never before.
 */
export class ParquetTarget implements Target {
  readonly capabilities: { maxBatchSize: number };
  readonly #options: ParquetTargetOptions;
  readonly #now: () => number;
  readonly #versions: VersionClock;

  constructor(options: ParquetTargetOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#versions = new VersionClock(this.#now);
    this.capabilities = { maxBatchSize: options.maxRowsPerFile };
  }

  prepare(tables: readonly StreamTable[]): Promise<void> {
    const clash = tables.find((table) => table.columns.some((column) => column.name === VERSION_COLUMN));
    if (clash !== undefined)
      throw new ParquetSinkError(
        `stream ${clash.stream} declares a column "${VERSION_COLUMN}", which the parquet sink writes itself`,
        'PARQUET_COLUMN_RESERVED',
      );
    return Promise.resolve();
  }

  async send(batch: Batch, _revived: ReadonlySet<string>): Promise<TargetOutcome> {
    const { businessId, table } = batch;
    const stored: SyncRecord[] = [];
    const rejected: DeadLetter[] = [];
    for (const record of batch.records) {
      const reason = refusal(record, table.columns);
      if (reason === undefined) stored.push(record);
      else rejected.push({ businessId, stream: table.stream, reason, raw: record.raw });
    }
    if (stored.length === 0) return { stored, rejected };
    const from = (await this.#options.checkpoints.load(businessId, table.stream))?.position ?? null;
    const name = partName(['records', businessId, table.stream, from === null ? null : canonicalJson(from), stored.map((record) => record.id)]);
    const now = this.#now();
    const syncedAt = new Date(now).toISOString();
    const rows = stored.map((record) => recordRow(record, table, this.#versions.next(), jsonText(record.raw), syncedAt));
    await this.#putFile(partitionPrefix(table, businessId, dayOf(now)) + name, table, rows);
    return { stored: stored.length === batch.records.length ? batch.records : stored, rejected };
  }

  /** Ids already marked deleted get no second deletion row; a rerun of the same deletion overwrites its file. */
  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    const already = await this.#options.records.deletedAmong(businessId, table, ids);
    const live = ids.filter((id) => !already.has(id));
    if (live.length === 0) return;
    const now = this.#now();
    const deletedAt = new Date(now).toISOString();
    const rows = live.map((id) => deletionRow(businessId, id, table, this.#versions.next(), deletedAt));
    await this.#putFile(partitionPrefix(table, businessId, dayOf(now)) + partName(['deletions', businessId, table.stream, live]), table, rows);
  }

  /** Encodes the rows into a local file (in the storage's staging folder when it has one) and stores it. */
  async #putFile(key: string, table: StreamTable, rows: readonly RowValue[][]): Promise<void> {
    const path = join(this.#options.storage.stagingDirectory ?? tmpdir(), `callsync-${randomUUID()}.parquet`);
    try {
      await this.#options.encoder.write(path, rowLayout(table), rows);
      await this.#options.storage.put(key, { path, consume: true }, { contentType: PARQUET_TYPE });
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  ping(): Promise<void> {
    return this.#options.storage.ping();
  }

  async close(): Promise<void> {
    try {
      await this.#options.storage.close();
    } finally {
      this.#options.encoder.close();
    }
  }
}
