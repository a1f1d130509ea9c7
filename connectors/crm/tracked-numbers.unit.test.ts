import { describe, expect, it } from 'vitest';
import type { StreamTable } from '../../src/sink/sink.js';
import { MemoryStateStore } from '../../test/fakes/memory-state-store.js';
import { TrackedNumbers } from './tracked-numbers.js';

const numbers: StreamTable = { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] };
const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [] };

async function storeWith(rows: { businessId: string; id: string; number: string }[]): Promise<MemoryStateStore> {
  const store = new MemoryStateStore();
  for (const row of rows) {
    await store.commit(
      {
        businessId: row.businessId,
        table: numbers,
        records: [{ businessId: row.businessId, id: row.id, source: 'v1', fields: { number: row.number }, raw: {} }],
        deadLetters: [],
      },
      {},
    );
  }
  return store;
}

describe('TrackedNumbers', () => {
  it("reads the business's stored numbers at every call, added to the configured ones", async () => {
    const store = await storeWith([
      { businessId: 'a', id: 'n1', number: '+14155550100' },
      { businessId: 'b', id: 'n2', number: '+12125550100' },
    ]);
    const tracked = new TrackedNumbers({ records: store.records, configured: ['(310) 555-0100'] });
    tracked.prepare([calls, numbers]);
    expect([...(await tracked.of('a'))].sort()).toEqual(['+13105550100', '+14155550100']);
    await store.commit(
      { businessId: 'a', table: numbers, records: [{ businessId: 'a', id: 'n3', source: 'v1', fields: { number: '+18005550100' }, raw: {} }], deadLetters: [] },
      {},
    );
    expect(await tracked.of('a')).toContain('+18005550100');
    expect(await tracked.of('a')).not.toContain('+12125550100');
  });

  it('leaves out numbers marked deleted', async () => {
    const store = await storeWith([{ businessId: 'a', id: 'n1', number: '+14155550100' }]);
    const tracked = new TrackedNumbers({ records: store.records });
    tracked.prepare([numbers]);
    await store.records.markDeleted('a', numbers, ['n1']);
    expect(await tracked.of('a')).toEqual(new Set());
  });

  it('reads only the configured numbers while the numbers stream is not prepared', async () => {
    const store = await storeWith([{ businessId: 'a', id: 'n1', number: '+14155550100' }]);
    const tracked = new TrackedNumbers({ records: store.records, configured: ['4155550111'] });
    tracked.prepare([calls]);
    expect(await tracked.of('a')).toEqual(new Set(['+14155550111']));
  });
});
