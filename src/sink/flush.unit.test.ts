import { describe, expect, it } from 'vitest';
import { writeFlush, type FlushPage } from './flush.js';
import type { Batch, JsonObject, Sink, SinkNote, StreamTable, SyncRecord, WriteResult } from './sink.js';

const table: StreamTable = { stream: 'sms', table: 'sms', columns: [] };
const note: SinkNote = { code: 'guessed', count: 1, message: 'guessed' };

function record(id: string): SyncRecord {
  return { businessId: 'acme', id, source: 'v1', fields: {}, raw: { id } };
}

function page(offset: number, ids: string[], deadLetters = 0): FlushPage {
  return {
    records: ids.map(record),
    deadLetters: Array.from({ length: deadLetters }, () => ({ businessId: 'acme', stream: 'sms', reason: 'bad', raw: {} })),
    position: { offset },
  };
}

/** A sink of `maxBatchSize` that keeps each write, notes one record of each, and fails the writes numbered in `failing`. */
function sink(maxBatchSize: number, failing: number[] = []): { sink: Sink; writes: [string[], number, unknown][] } {
  const writes: [string[], number, unknown][] = [];
  const write = (batch: Batch, position: JsonObject): Promise<WriteResult> => {
    writes.push([batch.records.map((one) => one.id), batch.deadLetters.length, position.offset]);
    if (failing.includes(writes.length)) return Promise.reject(new Error('connection lost'));
    return Promise.resolve({ written: batch.records.length, unchanged: 0, deadLettered: batch.deadLetters.length, notes: [note] });
  };
  return { sink: { capabilities: { maxBatchSize }, write } as unknown as Sink, writes };
}

describe('writeFlush', () => {
  it("gives each part the position past the pages it completes, and each page its share and its parts' notes", async () => {
    const { sink: target, writes } = sink(3);
    const outcome = await writeFlush(target, {
      businessId: 'acme',
      table,
      pages: [page(2, ['a', 'b'], 1), page(6, ['c', 'd', 'e', 'f']), page(6, [])],
      storedPosition: { offset: 0 },
      writes: true,
    });
    expect(writes).toEqual([
      [['a', 'b', 'c'], 1, 2],
      [['d', 'e', 'f'], 0, 6],
    ]);
    expect(outcome).toEqual({
      stored: [
        { written: 2, deadLettered: 1, notes: [note] },
        { written: 4, deadLettered: 0 },
        { written: 0, deadLettered: 0, notes: [note] },
      ],
      unchanged: 0,
    });
  });

  it('keeps the stored position on a part that completes no page, and says which pages a failed part left unstored', async () => {
    const { sink: target, writes } = sink(2, [2]);
    const outcome = await writeFlush(target, {
      businessId: 'acme',
      table,
      pages: [page(5, ['a', 'b', 'c', 'd', 'e'])],
      storedPosition: { offset: 0 },
      writes: true,
    });
    expect(writes).toEqual([
      [['a', 'b'], 0, 0],
      [['c', 'd'], 0, 0],
    ]);
    expect(outcome.stored).toEqual([]);
    expect(outcome.failure?.error).toEqual(new Error('connection lost'));
  });

  it('writes nothing for a flush with nothing to store, and reports its pages stored', async () => {
    const { sink: target, writes } = sink(10);
    const outcome = await writeFlush(target, { businessId: 'acme', table, pages: [page(4, [])], storedPosition: { offset: 4 }, writes: false });
    expect(writes).toEqual([]);
    expect(outcome).toEqual({ stored: [{ written: 0, deadLettered: 0 }], unchanged: 0 });
  });
});
