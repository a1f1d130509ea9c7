import type { StateStore } from '../../src/sink/parts.js';
import type { StreamTable } from '../../src/sink/sink.js';

/** A stream's table as the state store keeps it for the parquet sink: the key columns, no stream column. */
function keysOnly(table: StreamTable): StreamTable {
  return table.columns.length === 0 ? table : { ...table, columns: [] };
}

/**
 * The state store with every stream's table reduced to what reconcile reads (`business_id`, `id`,
 * `source`, `raw`, `synced_at`, `deleted_at`): the records are in the files, and the target hands
 * the store only each record's key and a fingerprint of its raw text, so a column per stream field
 * would hold NULLs that every commit still binds and compares.
 */
export function keysOnlyStateStore(store: StateStore): StateStore {
  const { records } = store;
  return {
    checkpoints: store.checkpoints,
    deadLetters: store.deadLetters,
    records: {
      listIds: (businessId, table, options) => records.listIds(businessId, keysOnly(table), options),
      count: (businessId, table) => records.count(businessId, keysOnly(table)),
      markDeleted: (businessId, table, ids) => records.markDeleted(businessId, keysOnly(table), ids),
      deletedAmong: (businessId, table, ids) => records.deletedAmong(businessId, keysOnly(table), ids),
      columnValues: (businessId, table, column) => records.columnValues(businessId, keysOnly(table), column),
    },
    prepare: (tables) => store.prepare(tables.map(keysOnly)),
    commit: (batch, position, counts, targetDurable) => store.commit({ ...batch, table: keysOnly(batch.table) }, position, counts, targetDurable),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
