import type { StreamTable, SyncRecord } from '../../src/sink/sink.js';

/** A custom stream whose table `prepare` creates and then grows by one column. */
export const customStream: StreamTable = {
  stream: 'sms',
  table: 'sms',
  columns: [
    { name: 'body', type: 'text' },
    { name: 'created_at', type: 'timestamp' },
  ],
};

export function workerRecord(worker: number): SyncRecord {
  return { businessId: 'acme', id: `w${String(worker)}`, source: 'v1', fields: { body: 'hi', created_at: '2024-01-01T00:00:00Z' }, raw: { worker } };
}

/** {@link customStream} after it grew a field: `prepare` must add the column. */
export const grownStream: StreamTable = { ...customStream, columns: [...customStream.columns, { name: 'channel', type: 'text' }] };
