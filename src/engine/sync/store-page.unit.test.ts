import { describe, expect, it } from 'vitest';
import type { Batch, JsonObject, Sink } from '../../sink/sink.js';
import { customStream } from '../../source/streams/custom-streams.js';
import { storePage, toPageRecords } from './store-page.js';
import type { WalkItem } from '../../source/walkers/index.js';

const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'sms', paging: 'offset', idField: 'id' });

/** A sink of `maxBatchSize` that keeps every write it is handed. */
function recordingSink(maxBatchSize: number): Pick<Sink, 'capabilities' | 'write'> & { writes: { batch: Batch; position: JsonObject }[] } {
  const writes: { batch: Batch; position: JsonObject }[] = [];
  return {
    writes,
    capabilities: { maxBatchSize },
    write: (batch, position) => {
      writes.push({ batch, position });
      return Promise.resolve({ written: batch.records.length, unchanged: 0, deadLettered: batch.deadLetters.length });
    },
  };
}

const good = (id: string): WalkItem => ({ raw: { id }, result: { ok: true, id, fields: {} } });
const bad: WalkItem = { raw: { bad: true }, result: { ok: false, reason: 'id: missing' } };

describe('toPageRecords', () => {
  it('keeps records in page order, repeats included (the sink collapses them), and dead-letters failures with their reason', () => {
    const page = toPageRecords('acme', 'calls', 'v1', [
      { raw: { id: 'a', v: 1 }, result: { ok: true, id: 'a', fields: { v: 1 } } },
      { raw: { bad: true }, result: { ok: false, reason: 'id: missing' } },
      { raw: { id: 'b' }, result: { ok: true, id: 'b', fields: {} } },
      { raw: { id: 'a', v: 2 }, result: { ok: true, id: 'a', fields: { v: 2 } } },
    ]);
    expect(page.records.map((record) => [record.id, record.fields])).toEqual([
      ['a', { v: 1 }],
      ['b', {}],
      ['a', { v: 2 }],
    ]);
    expect(page.records[1]).toMatchObject({ businessId: 'acme', source: 'v1', raw: { id: 'b' } });
    expect(page.deadLetters).toEqual([{ businessId: 'acme', stream: 'calls', reason: 'id: missing', raw: { bad: true } }]);
  });
});

describe('storePage', () => {
  it("writes a page in parts of the sink's batch size: dead letters with the first, the page's position with the last only", async () => {
    const sink = recordingSink(2);
    const page = { items: [good('a'), bad, good('b'), good('c')], position: { offset: 4 } };
    expect(await storePage(sink, 'acme', sms, page, { offset: 0 })).toEqual({ written: 3, unchanged: 0, deadLettered: 1 });
    expect(sink.writes.map(({ batch, position }) => [batch.records.map((record) => record.id), batch.deadLetters.length, position])).toEqual([
      [['a', 'b'], 1, { offset: 0 }],
      [['c'], 0, { offset: 4 }],
    ]);
  });

  it('writes a page without records once: its dead letters, and the checkpoint past it', async () => {
    const sink = recordingSink(2);
    await storePage(sink, 'acme', sms, { items: [bad], position: { offset: 1 } }, undefined);
    expect(sink.writes.map(({ batch, position }) => [batch.records.length, batch.deadLetters.length, position])).toEqual([[0, 1, { offset: 1 }]]);
  });
});
