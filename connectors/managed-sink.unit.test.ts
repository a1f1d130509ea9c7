import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Batch, Checkpoint, StreamTable, WriteResult } from '../src/sink.js';
import { ManagedSink } from './managed-sink.js';
import type { SinkConnector } from './sink-connector.js';
import { InvalidBatchError, SinkClosedError } from './sink-errors.js';

const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [] };
const checkpoint: Checkpoint = { businessId: 'acme', stream: 'calls', position: {}, recordsSynced: 0 };
const batch = (records = 1, businessId = 'acme'): Batch => ({
  businessId: 'acme',
  table: calls,
  records: Array.from({ length: records }, (_, i) => ({ businessId, id: `c${i}`, source: 'v1' as const, fields: {}, raw: {} })),
  deadLetters: [],
});

/** An in-memory connector that records what the wrapper asks of it. */
class RecordingConnector implements SinkConnector {
  readonly type = 'memory';
  readonly capabilities = { maxBatchSize: 2 };
  readonly prepared: string[][] = [];
  failPrepare = 0;
  closes = 0;
  readonly checkpoints = { load: () => Promise.resolve(undefined), save: () => Promise.resolve() };
  readonly deadLetters = { list: () => Promise.resolve([]), remove: () => Promise.resolve() };

  prepare(tables: readonly StreamTable[]): Promise<void> {
    if (this.failPrepare-- > 0) return Promise.reject(new Error('database is starting up'));
    this.prepared.push(tables.map((table) => table.table));
    return Promise.resolve();
  }

  write(written: Batch): Promise<WriteResult> {
    return Promise.resolve({ written: written.records.length, unchanged: 0, deadLettered: 0 });
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closes++;
    return Promise.resolve();
  }
}

const logger = pino({ level: 'silent' });

describe('ManagedSink', () => {
  it('fills capability defaults the connector leaves out', () => {
    expect(new ManagedSink(new RecordingConnector(), logger).capabilities).toEqual({ transactionalCheckpoint: false, maxBatchSize: 2 });
  });

  it('prepares a table once, before its first write, even for concurrent writes', async () => {
    const connector = new RecordingConnector();
    const sink = new ManagedSink(connector, logger);
    await Promise.all([sink.write(batch(), checkpoint), sink.write(batch(), checkpoint), sink.prepare([calls])]);
    await sink.checkpoints.load('acme', 'calls');
    expect(connector.prepared).toEqual([['calls']]);
  });

  it('retries a failed prepare on the next call', async () => {
    const connector = new RecordingConnector();
    connector.failPrepare = 1;
    const sink = new ManagedSink(connector, logger);
    await expect(sink.prepare([calls])).rejects.toThrow(/starting up/);
    await sink.prepare([calls]);
    expect(connector.prepared).toEqual([['calls']]);
  });

  it('closes the connector once and refuses work afterwards', async () => {
    const connector = new RecordingConnector();
    const sink = new ManagedSink(connector, logger);
    await Promise.all([sink.close(), sink.close()]);
    await sink.close();
    expect(connector.closes).toBe(1);
    await expect(sink.write(batch(), checkpoint)).rejects.toBeInstanceOf(SinkClosedError);
    await expect(sink.deadLetters.list({})).rejects.toThrow('memory sink is already closed: cannot list dead letters');
  });

  it('rejects batches that break the contract before the connector sees them', async () => {
    const sink = new ManagedSink(new RecordingConnector(), logger);
    await expect(sink.write(batch(3), checkpoint)).rejects.toThrow(/exceeds maxBatchSize 2/);
    await expect(sink.write(batch(1, 'globex'), checkpoint)).rejects.toBeInstanceOf(InvalidBatchError);
    await expect(sink.write(batch(), { ...checkpoint, stream: 'voicemails' })).rejects.toThrow(/does not match/);
  });
});
