import { hash, randomUUID } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../src/normalize/index.js';
import { jsonText } from '../../src/sink/json-text.js';
import type { StateStoreRecords, StoreBatch, Target, TargetOutcome } from '../../src/sink/parts.js';
import type { CheckpointStore, DeadLetter, StreamTable, SyncRecord } from '../../src/sink/sink.js';
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

/** Largest encoded file sent as bytes rather than streamed from disk: S3's smallest part, so it is always one request. */
const BYTES_AT_MOST = 5 * 1024 * 1024;

/**
 * Writes each batch as one Parquet file of new version rows, and each deletion as one file of
 * deletion rows, into the storage; resolves only when the object is durable, so the managed sink
 * moves the checkpoint (in the state store) after it, never before.
 */
export class ParquetTarget implements Target {
  readonly capabilities: { maxBatchSize: number };
  /** Every record sent is written as a new version, newer than any deletion row: whether it comes back from deleted changes nothing here. */
  readonly readsRevived = false;
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

  async send(batch: StoreBatch, _revived: ReadonlySet<string>): Promise<TargetOutcome> {
    const { businessId, table } = batch;
    const stored: SyncRecord[] = [];
    const rawTexts: string[] = [];
    const rejected: DeadLetter[] = [];
    batch.records.forEach((record, index) => {
      const reason = refusal(record, table.columns);
      if (reason !== undefined) rejected.push({ businessId, stream: table.stream, reason, raw: record.raw });
      else {
        stored.push(record);
        rawTexts.push(batch.rawTexts?.[index] ?? jsonText(record.raw));
      }
    });
    if (stored.length === 0) return { stored, rejected };
    const now = this.#now();
    const syncedAt = new Date(now).toISOString();
    const rows = stored.map((record, index) => recordRow(record, table, this.#versions.next(), rawTexts[index] as string, syncedAt));
    // The name needs the starting checkpoint, the encoding does not: the two run side by side.
    const key = this.#options.checkpoints.load(businessId, table.stream).then((checkpoint) => {
      const from = checkpoint?.position ?? null;
      const name = partName(['records', businessId, table.stream, from === null ? null : canonicalJson(from), stored.map((record) => record.id)]);
      return partitionPrefix(table, businessId, dayOf(now)) + name;
    });
    // Hashed while DuckDB encodes the file, instead of before or after.
    const copies = (): SyncRecord[] => stored.map((record, index) => stateCopy(record, rawTexts[index] as string));
    if (this.#options.storage.stagingDirectory === undefined) return { stored: await this.#putFile(key, table, rows, copies), rejected };
    return this.#handOverEarly(key, table, rows, copies, rejected);
  }

  /**
   * Into a folder: the outcome is handed over as soon as DuckDB encodes the file, with the file's
   * durability to come, so the state store writes its copy on this thread while DuckDB encodes on
   * its own and the file is synced (measured 2026-11-28: docs/sinks/parquet.md). Not into a
   * bucket: the state store's transaction stays open until the file is stored, and on SQLite every
   * other business's checkpoint read waits for it, so its uploads would queue one behind another;
   * a folder's store is a rename and two syncs. The outcome waits for the file's name too: once
   * that transaction is open, the checkpoint read that names the file would wait for it.
   */
  async #handOverEarly(
    key: Promise<string>,
    table: StreamTable,
    rows: readonly RowValue[][],
    copies: () => SyncRecord[],
    rejected: DeadLetter[],
  ): Promise<TargetOutcome> {
    let durable: Promise<void> = Promise.resolve();
    const encoding = new Promise<SyncRecord[]>((handOver, fail) => {
      durable = this.#putFile(key, table, rows, () => handOver(copies()));
      void durable.catch(fail);
    });
    try {
      const [stored] = await Promise.all([encoding, key]);
      return { stored, rejected, durable };
    } catch (error) {
      // The write ends with the file: nothing of it is left behind in staging.
      await durable.catch(() => undefined);
      throw error;
    }
  }

  /** Ids already marked deleted get no second deletion row; a rerun of the same deletion overwrites its file. */
  async delete(businessId: string, table: StreamTable, ids: readonly string[]): Promise<void> {
    const already = await this.#options.records.deletedAmong(businessId, table, ids);
    const live = ids.filter((id) => !already.has(id));
    if (live.length === 0) return;
    const now = this.#now();
    const deletedAt = new Date(now).toISOString();
    const rows = live.map((id) => deletionRow(businessId, id, table, this.#versions.next(), deletedAt));
    const key = partitionPrefix(table, businessId, dayOf(now)) + partName(['deletions', businessId, table.stream, live]);
    await this.#putFile(Promise.resolve(key), table, rows, () => undefined);
  }

  /**
   * Encodes the rows into a local file and stores it under `key`. With a staging directory (the
   * folder) the file is prepared there and renamed into place; without one (S3), a file up to
   * {@link BYTES_AT_MOST} goes as bytes in one request, which costs less than streaming it.
   * Resolves with what `meanwhile` returned (the encoder calls it while it encodes).
   */
  async #putFile<T>(key: Promise<string>, table: StreamTable, rows: readonly RowValue[][], meanwhile: () => T): Promise<T> {
    const staging = this.#options.storage.stagingDirectory;
    const path = join(staging ?? tmpdir(), `callsync-${randomUUID()}.parquet`);
    // Both settle before anything is removed: a failed read of the key must not leave the file being written.
    const [named, encoded] = await Promise.allSettled([key, this.#options.encoder.write(path, rowLayout(table), rows, meanwhile)]);
    try {
      if (named.status === 'rejected') throw named.reason;
      if (encoded.status === 'rejected') throw encoded.reason;
      const bytes = staging === undefined && (await stat(path)).size <= BYTES_AT_MOST ? await readFile(path) : undefined;
      if (bytes !== undefined) await rm(path);
      await this.#options.storage.put(named.value, bytes ?? { path, consume: true }, { contentType: PARQUET_TYPE });
      // The encoder makes the next file's table while the file is stored; the write is done once that is too.
      await this.#options.encoder.idle();
      return encoded.value;
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
      await this.#options.encoder.close();
    }
  }
}

/**
 * What the state store keeps of a record written to a file: its key, `source`, and as `raw` a
 * SHA-256 of its JSON text, no columns. Reconcile needs only the keys (counts, lists, deletion
 * marks), and the fingerprint still tells a changed record from one written again as it was (the
 * write's counts). A full copy doubled the lake in the state database and cost the sink about as
 * much as encoding the file (measured, 2026-11-28: docs/sinks/parquet.md).
 */
function stateCopy(record: SyncRecord, rawText: string): SyncRecord {
  return { businessId: record.businessId, id: record.id, source: record.source, fields: {}, raw: hash('sha256', rawText, 'base64url') };
}
