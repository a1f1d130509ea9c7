import type { StateStore, TargetCounts } from '../../src/sink/parts.js';
import type { Batch, Checkpoint, JsonObject, StoredDeadLetter, StreamTable, SyncRecord, WriteResult } from '../../src/sink/sink.js';

interface Row {
  readonly record: SyncRecord;
  deleted: boolean;
}

/**
 * A state store in memory with the contract's semantics (one commit: copy, dead letters,
 * checkpoint; counts added), for unit tests that must do no I/O. Records what it was asked.
 */
export class MemoryStateStore implements StateStore {
  readonly rows = new Map<string, Row>();
  readonly stored = new Map<string, Checkpoint>();
  readonly letters: StoredDeadLetter[] = [];
  readonly commits: Batch[] = [];
  readonly prepared: string[][] = [];
  /** Fails this many `prepare` calls before succeeding. */
  failPrepare = 0;
  closed = 0;

  readonly checkpoints = {
    load: (businessId: string, stream: string) => Promise.resolve(this.stored.get(`${businessId}/${stream}`)),
    save: (value: Checkpoint) => Promise.resolve(void this.stored.set(`${value.businessId}/${value.stream}`, value)),
  };

  readonly deadLetters = {
    list: (filter: { businessId?: string; stream?: string; limit?: number } = {}) =>
      Promise.resolve(
        this.letters
          .filter(
            (letter) =>
              (filter.businessId === undefined || letter.businessId === filter.businessId) && (filter.stream === undefined || letter.stream === filter.stream),
          )
          .slice(0, filter.limit),
      ),
    remove: (ids: readonly number[]) => {
      const kept = this.letters.filter((letter) => !ids.includes(letter.id));
      this.letters.splice(0, this.letters.length, ...kept);
      return Promise.resolve();
    },
  };

  readonly records = {
    listIds: (businessId: string, table: StreamTable, options: { after?: string; limit?: number } = {}) => {
      const ids = this.#live(businessId, table)
        .map((row) => row.record.id)
        .filter((id) => options.after === undefined || id > options.after)
        .sort();
      return Promise.resolve(ids.slice(0, options.limit ?? 1000));
    },
    count: (businessId: string, table: StreamTable) => Promise.resolve(this.#live(businessId, table).length),
    deletedAmong: (businessId: string, table: StreamTable, ids: readonly string[]) =>
      Promise.resolve(new Set(ids.filter((id) => this.rows.get(key(businessId, table.table, id))?.deleted === true))),
    columnValues: (businessId: string, table: StreamTable, column: string) => {
      const values = this.#live(businessId, table).map((row) => row.record.fields[column]);
      return Promise.resolve([...new Set(values.filter((value) => value !== null && value !== undefined).map(String))]);
    },
    markDeleted: (businessId: string, table: StreamTable, ids: readonly string[]) => {
      let marked = 0;
      for (const id of ids) {
        const row = this.rows.get(key(businessId, table.table, id));
        if (row !== undefined && !row.deleted) {
          row.deleted = true;
          marked += 1;
        }
      }
      return Promise.resolve(marked);
    },
  };

  prepare(tables: readonly StreamTable[]): Promise<void> {
    if (this.failPrepare-- > 0) return Promise.reject(new Error('database is starting up'));
    this.prepared.push(tables.map((table) => table.table));
    return Promise.resolve();
  }

  commit(batch: Batch, position: JsonObject, counts?: TargetCounts, targetDurable?: Promise<void>): Promise<WriteResult> {
    // All or nothing, as a transaction: nothing is kept before the target holds the batch.
    if (targetDurable !== undefined) return targetDurable.then(() => this.#commitNow(batch, position, counts));
    return Promise.resolve(this.#commitNow(batch, position, counts));
  }

  #commitNow(batch: Batch, position: JsonObject, counts: TargetCounts | undefined): WriteResult {
    this.commits.push(batch);
    let changed = 0;
    for (const record of batch.records) {
      const id = key(batch.businessId, batch.table.table, record.id);
      const before = this.rows.get(id);
      if (before === undefined || before.deleted || JSON.stringify(before.record) !== JSON.stringify(record)) changed += 1;
      this.rows.set(id, { record, deleted: false });
    }
    for (const letter of batch.deadLetters) this.letters.push({ ...letter, id: this.letters.length + 1, firstSeenAt: 'now', attempts: 1 });
    const written = counts?.written ?? changed;
    const stream = batch.table.stream;
    const total = (this.stored.get(`${batch.businessId}/${stream}`)?.recordsSynced ?? 0) + written;
    this.stored.set(`${batch.businessId}/${stream}`, { businessId: batch.businessId, stream, position, recordsSynced: total });
    return { written, unchanged: counts?.unchanged ?? batch.records.length - changed, deadLettered: batch.deadLetters.length };
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed += 1;
    return Promise.resolve();
  }

  #live(businessId: string, table: StreamTable): Row[] {
    const prefix = `${businessId}/${table.table}/`;
    return [...this.rows.entries()].filter(([id, row]) => id.startsWith(prefix) && !row.deleted).map(([, row]) => row);
  }
}

function key(businessId: string, table: string, id: string): string {
  return `${businessId}/${table}/${id}`;
}
