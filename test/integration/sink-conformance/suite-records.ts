import { expect, it } from 'vitest';
import { jsonText } from '../../../src/sink/json-text.js';
import { storedIdPages, type Json, type SyncRecord } from '../../../src/sink/sink.js';
import { batchOf, callRecord, callsTable, checkpointAt, voicemailRecord, voicemailsTable } from './fixtures.js';
import type { SinkUnderTest } from './harness.js';

const A = 'acme';
const B = 'globex';

/** JSON nested `levels` deep: `{ a: { a: … "bottom" } }`. */
export function nestedJson(levels: number): Json {
  let value: Json = 'bottom';
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

/** Records no sink can store as received, and the reason each must give. */
function unstorable(): { record: SyncRecord; reason: RegExp }[] {
  const base = voicemailRecord(A, 'v2');
  return [
    { record: { ...base, id: 'deep', raw: { uuid: 2, nested: nestedJson(6000) } }, reason: /^raw: JSON nested deeper than 1000 levels$/ },
    { record: { ...voicemailRecord(A, 'lone'), raw: { uuid: 3, transcription: 'broken \ud83d here' } }, reason: /^raw\.transcription: lone surrogate/ },
    {
      record: { ...voicemailRecord(A, 'big'), fields: { ...base.fields, transcription_text: 'x'.repeat(16 * 1024 * 1024 + 1) } },
      reason: /^transcription_text: string longer than 16777216 characters$/,
    },
    { record: { ...voicemailRecord(A, 'long-id'), id: 'i'.repeat(1025) }, reason: /^id: 1025 bytes, more than 1024$/ },
  ];
}

/** Records a sink cannot store become dead letters with the reason; the rest of the page is stored; the next write is clean. */
export function describeUnstorable(target: () => SinkUnderTest): void {
  it('keeps records nested 6,000 deep, with a lone surrogate or oversized as dead letters, and stores the rest of the page', async () => {
    const bad = unstorable();
    const good = [voicemailRecord(A, 'v1'), voicemailRecord(A, 'v3')];
    const result = await target().sink.write(batchOf(A, voicemailsTable, [good[0]!, ...bad.map((entry) => entry.record), good[1]!]), { highWater: 'h1' });
    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: bad.length });
    expect((await target().readRows(voicemailsTable, A)).map((row) => row.id)).toEqual(['v1', 'v3']);
    const letters = await target().sink.deadLetters.list({ businessId: A, stream: 'voicemails' });
    expect(letters).toHaveLength(bad.length);
    for (const [index, { record, reason }] of bad.entries()) {
      expect(letters[index]?.reason).toMatch(reason);
      // Kept whole, the deep record too although JSON.stringify cannot write it (nor toEqual compare it).
      expect(jsonText(letters[index]?.raw ?? null)).toBe(jsonText(record.raw));
    }
    expect(await target().sink.checkpoints.load(A, 'voicemails')).toEqual(checkpointAt(A, 'voicemails', { highWater: 'h1' }, 2));
    const next = await target().sink.write(batchOf(A, voicemailsTable, [voicemailRecord(A, 'v4')]), { highWater: 'h2' });
    expect(next).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
  });
}

/** What reconciliation builds on: stored ids and counts per business × stream, and deletion that is never a hard delete. */
export function describeStoredRecords(target: () => SinkUnderTest): void {
  it('lists stored ids page by page and counts them, per business and stream', async () => {
    const ids = ['c01', 'c02', 'c03', 'c04', 'c05'];
    await target().sink.write(
      batchOf(
        A,
        callsTable,
        ids.map((id) => callRecord(A, id)),
      ),
      { cursor: 'a' },
    );
    await target().sink.write(batchOf(B, callsTable, [callRecord(B, 'c09')]), { cursor: 'b' });
    const { records } = target().sink;
    const first = await records.listIds(A, callsTable, { limit: 2 });
    const second = await records.listIds(A, callsTable, { after: first.at(-1), limit: 2 });
    const third = await records.listIds(A, callsTable, { after: second.at(-1), limit: 2 });
    expect([first, second, third]).toEqual([['c01', 'c02'], ['c03', 'c04'], ['c05']]);
    expect(await records.listIds(A, callsTable, { after: 'c05' })).toEqual([]);
    const pages: string[][] = [];
    for await (const page of storedIdPages(records, A, callsTable, 2)) pages.push(page);
    expect(pages).toEqual([['c01', 'c02'], ['c03', 'c04'], ['c05']]);
    expect(await records.count(A, callsTable)).toBe(5);
    expect(await records.count(B, callsTable)).toBe(1);
    expect(await records.count(A, voicemailsTable)).toBe(0);
  });

  it('marks records deleted at the target without removing them, and a record written again comes back', async () => {
    const { sink } = target();
    await sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2'), callRecord(A, 'c3')]), { cursor: 'a' });
    await sink.write(batchOf(B, callsTable, [callRecord(B, 'c1')]), { cursor: 'b' });
    expect(await sink.records.markDeleted(A, callsTable, ['c1', 'c3', 'never-stored'])).toBe(2);
    expect(await sink.records.markDeleted(A, callsTable, ['c1'])).toBe(0);
    expect(await sink.records.listIds(A, callsTable)).toEqual(['c2']);
    expect(await sink.records.count(A, callsTable)).toBe(1);
    expect(await target().readDeleted(callsTable, A)).toEqual(['c1', 'c3']);
    expect((await target().readRows(callsTable, A)).map((row) => row.id)).toEqual(['c2']);
    expect(await sink.records.count(B, callsTable)).toBe(1);
    // Upstream lists c1 and c3 again, unchanged, in the very batch of the first write: they are no
    // longer deleted (a receiver deduplicating batches must not drop it as seen), and that counts.
    const back = await sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2'), callRecord(A, 'c3')]), { cursor: 'c' });
    expect(back).toEqual({ written: 2, unchanged: 1, deadLettered: 0 });
    expect(await sink.records.listIds(A, callsTable)).toEqual(['c1', 'c2', 'c3']);
    expect(await target().readDeleted(callsTable, A)).toEqual([]);
    expect((await target().readRows(callsTable, A)).map((row) => row.id)).toEqual(['c1', 'c2', 'c3']);
    // And deleted once more: the second deletion of the same ids is not dropped as seen either.
    expect(await sink.records.markDeleted(A, callsTable, ['c1', 'c3'])).toBe(2);
    expect(await target().readDeleted(callsTable, A)).toEqual(['c1', 'c3']);
  });
}
