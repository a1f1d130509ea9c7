import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../../src/sink/sink.js';
import { batchOf, callRecord, callsTable, checkpointAt, smsRecord, smsTable, voicemailRecord, voicemailsTable } from './fixtures.js';
import type { SinkHarness, SinkUnderTest } from './harness.js';
import { describeStoredRecords, describeUnstorable } from './suite-records.js';

export type { SinkHarness, SinkUnderTest, StoredRow } from './harness.js';

const A = 'acme';
const B = 'globex';

/**
 * The behaviour every connector owes the engine. Run it from one `<connector>.test.ts` per
 * connector; every case runs for every connector (the harness says where a connector's target
 * differs: delivered before the commit, fixed objects, replays counted by the target).
 */
export function describeSinkConformance(harness: SinkHarness): void {
  describe(`sink conformance: ${harness.name}`, () => {
    let target: SinkUnderTest;

    beforeEach(async () => {
      target = await harness.create();
      await target.sink.prepare([callsTable, voicemailsTable]);
    });

    afterEach(async () => {
      await target.sink.close();
      await target.cleanup();
    });

    it('answers ping and accepts prepare again', async () => {
      await expect(target.sink.ping()).resolves.toBeUndefined();
      await target.sink.prepare([callsTable, voicemailsTable]);
    });

    it('upserts records idempotently by (business, id)', async () => {
      const records = [callRecord(A, 'c1'), callRecord(A, 'c2'), callRecord(A, 'c3')];
      const result = await target.sink.write(batchOf(A, callsTable, records), { cursor: 'p1' });
      expect(result).toEqual({ written: 3, unchanged: 0, deadLettered: 0 });
      const rows = await target.readRows(callsTable, A);
      expect(rows.map(({ syncedAt: _, ...row }) => row)).toEqual(
        records.map((record) => ({ businessId: A, id: record.id, source: 'v1', fields: record.fields, raw: record.raw })),
      );
    });

    it('changes nothing when the same batch is replayed', async () => {
      const batch = batchOf(A, voicemailsTable, [voicemailRecord(A, 'v1'), voicemailRecord(A, 'v2', { transcription_summary: 'x' })]);
      await target.sink.write(batch, { highWater: '2024-03-02T08:00:05Z' });
      const before = await target.readRows(voicemailsTable, A);
      const replay = await target.sink.write(batch, { highWater: '2024-03-02T08:00:05Z' });
      expect(replay).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
      expect(await target.readRows(voicemailsTable, A)).toEqual(before);
    });

    it('replaces a record whose content changed', async () => {
      await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2')]), { cursor: 'p1' });
      const updated = callRecord(A, 'c2', 'transcribed again');
      const result = await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), updated]), { cursor: 'p2' });
      expect(result).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
      const rows = await target.readRows(callsTable, A);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ id: 'c2', raw: updated.raw, fields: { transcription_text: 'transcribed again' } });
    });

    it('keeps the last of two records with the same id in one batch', async () => {
      const result = await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1', 'first'), callRecord(A, 'c1', 'second')]), { cursor: 'p1' });
      expect(result.written).toBe(1);
      expect((await target.readRows(callsTable, A)).map((row) => row.fields.transcription_text)).toEqual(['second']);
    });

    it('repeats at most the interrupted batch and loses none when the checkpoint fails', async () => {
      const atomic = !harness.deliveredBeforeCommit;
      await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2')]), { cursor: 'p1' });
      const before = await target.readRows(callsTable, A);
      expect(before).toHaveLength(2);
      const second = batchOf(A, callsTable, [callRecord(A, 'c3'), callRecord(A, 'c2', 'changed')]);
      const restore = await target.breakCheckpoints();
      await expect(target.sink.write(second, { cursor: 'p2' })).rejects.toThrow();
      await restore();
      expect(await target.sink.checkpoints.load(A, 'calls')).toEqual(checkpointAt(A, 'calls', { cursor: 'p1' }, 2));
      // Atomic: the failed commit took the rows with it. Delivered first: the target has them already.
      const afterCrash = (await target.readRows(callsTable, A)).map((row) => [row.id, row.fields.transcription_text]);
      expect(afterCrash).toEqual(
        atomic
          ? before.map((row) => [row.id, row.fields.transcription_text])
          : [
              ['c1', 'hello from c1'],
              ['c2', 'changed'],
              ['c3', 'hello from c3'],
            ],
      );
      const retry = await target.sink.write(second, { cursor: 'p2' });
      const retried = harness.targetCountsReplays === true ? 0 : 2;
      expect(retry).toEqual({ written: retried, unchanged: 2 - retried, deadLettered: 0 });
      const rows = await target.readRows(callsTable, A);
      expect(rows.map((row) => [row.id, row.fields.transcription_text])).toEqual([
        ['c1', 'hello from c1'],
        ['c2', 'changed'],
        ['c3', 'hello from c3'],
      ]);
      const stored = await target.sink.checkpoints.load(A, 'calls');
      expect(stored?.position).toEqual({ cursor: 'p2' });
      expect(stored?.recordsSynced).toBe(2 + retried);
    });

    it('moves the checkpoint on an empty batch', async () => {
      const result = await target.sink.write(batchOf(A, callsTable, []), { cursor: 'end', hasMore: false });
      expect(result).toEqual({ written: 0, unchanged: 0, deadLettered: 0 });
      expect(await target.sink.checkpoints.load(A, 'calls')).toEqual(checkpointAt(A, 'calls', { cursor: 'end', hasMore: false }, 0));
      expect(await target.readRows(callsTable, A)).toEqual([]);
    });

    it('closes twice without complaint and rejects work after close', async () => {
      await target.sink.close();
      await expect(target.sink.close()).resolves.toBeUndefined();
      const write = target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1')]), { cursor: 'p1' });
      await expect(write).rejects.toThrow(/closed/);
      await expect(target.sink.checkpoints.load(A, 'calls')).rejects.toThrow(/closed/);
      await expect(target.sink.ping()).rejects.toThrow(/closed/);
    });

    it('keeps a record the sink refuses as a dead letter and stores the rest', async () => {
      const { record: bad, reason } = target.rejectableRecord(A);
      const batch = batchOf(A, voicemailsTable, [voicemailRecord(A, 'v1'), bad, voicemailRecord(A, 'v3')]);
      const result = await target.sink.write(batch, { highWater: 'h1' });
      expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 1 });
      expect((await target.readRows(voicemailsTable, A)).map((row) => row.id)).toEqual(['v1', 'v3']);
      const [letter, ...more] = await target.sink.deadLetters.list({ businessId: A, stream: 'voicemails' });
      expect(more).toEqual([]);
      expect(letter).toMatchObject({ businessId: A, stream: 'voicemails', raw: bad.raw, attempts: 1 });
      expect(letter?.reason).toMatch(reason);
      expect(await target.sink.checkpoints.load(A, 'voicemails')).toMatchObject({ position: { highWater: 'h1' } });
      await target.sink.write(batch, { highWater: 'h1' });
      expect(await target.sink.deadLetters.list({ businessId: A })).toMatchObject([{ id: letter?.id, attempts: 2 }]);
    });

    it('counts a dead letter seen twice as one with two attempts, per business', async () => {
      const letter = (businessId: string): DeadLetter => ({
        businessId,
        stream: 'voicemails',
        reason: 'voicemail_created_at: unparseable "2024-13-01"',
        raw: { uuid: 7, voicemail_created_at: '2024-13-01' },
      });
      const write = (businessId: string, highWater: string): Promise<unknown> =>
        target.sink.write(batchOf(businessId, voicemailsTable, [], [letter(businessId)]), { highWater });
      expect(await write(A, 'h1')).toEqual({ written: 0, unchanged: 0, deadLettered: 1 });
      await write(A, 'h2');
      await write(B, 'h1');
      const [first, ...others] = await target.sink.deadLetters.list({ businessId: A, stream: 'voicemails' });
      expect(others).toEqual([]);
      expect(first).toMatchObject({ ...letter(A), attempts: 2 });
      expect(Number.isNaN(Date.parse(first?.firstSeenAt ?? ''))).toBe(false);
      expect(await target.sink.deadLetters.list({ businessId: B })).toMatchObject([{ attempts: 1 }]);
      await target.sink.deadLetters.remove([first?.id ?? -1]);
      expect(await target.sink.deadLetters.list({ businessId: A })).toEqual([]);
      expect(await target.sink.deadLetters.list({ limit: 10 })).toHaveLength(1);
    });

    it("never shows business A's rows under business B", async () => {
      await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2')]), { cursor: 'a' });
      const fromB = callRecord(B, 'c1', 'globex call');
      const result = await target.sink.write(batchOf(B, callsTable, [fromB]), { cursor: 'b' });
      expect(result.written).toBe(1);
      expect((await target.readRows(callsTable, A)).map((row) => [row.businessId, row.id, row.fields.transcription_text])).toEqual([
        [A, 'c1', 'hello from c1'],
        [A, 'c2', 'hello from c2'],
      ]);
      expect(await target.readRows(callsTable, B)).toMatchObject([{ businessId: B, id: 'c1', raw: fromB.raw }]);
      expect((await target.sink.checkpoints.load(B, 'calls'))?.position).toEqual({ cursor: 'b' });
    });

    it('round-trips checkpoints per (business, stream)', async () => {
      expect(await target.sink.checkpoints.load(A, 'calls')).toBeUndefined();
      const saved = checkpointAt(A, 'calls', { cursor: 'abc', nested: { offsets: [1, 2] }, done: false }, 5);
      await target.sink.checkpoints.save(saved);
      expect(await target.sink.checkpoints.load(A, 'calls')).toEqual(saved);
      expect(await target.sink.checkpoints.load(A, 'voicemails')).toBeUndefined();
      expect(await target.sink.checkpoints.load(B, 'calls')).toBeUndefined();
      await target.sink.write(batchOf(A, callsTable, [callRecord(A, 'c1'), callRecord(A, 'c2')]), { cursor: 'def' });
      expect(await target.sink.checkpoints.load(A, 'calls')).toEqual(checkpointAt(A, 'calls', { cursor: 'def' }, 7));
      await target.sink.checkpoints.save(checkpointAt(A, 'calls', {}, 0));
      expect(await target.sink.checkpoints.load(A, 'calls')).toEqual(checkpointAt(A, 'calls', {}, 0));
    });

    it('stores a custom stream table, or keeps its records in the state store alone where the target has fixed objects', async () => {
      await target.sink.prepare([smsTable]);
      const batch = batchOf(A, smsTable, [smsRecord(A, 's1'), smsRecord(A, 's2')]);
      if (harness.customTables === false) {
        // Never dead letters: a CRM reads such streams (the tracked numbers) from its state store.
        expect(await target.sink.write(batch, { offset: 2 })).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
        expect(await target.sink.write(batch, { offset: 2 })).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
        expect(await target.sink.deadLetters.list({ businessId: A, stream: 'sms' })).toEqual([]);
        expect(await target.sink.records.listIds(A, smsTable)).toEqual(['s1', 's2']);
        expect(await target.readRows(smsTable, A)).toEqual([]);
        expect(await target.sink.checkpoints.load(A, 'sms')).toEqual(checkpointAt(A, 'sms', { offset: 2 }, 2));
        return;
      }
      expect((await target.sink.write(batch, { offset: 2 })).written).toBe(2);
      expect((await target.sink.write(batch, { offset: 2 })).written).toBe(0);
      const rows = await target.readRows(smsTable, A);
      expect(rows.map(({ syncedAt: _, ...row }) => row)).toEqual(
        batch.records.map((record) => ({ businessId: A, id: record.id, source: 'v1', fields: record.fields, raw: record.raw })),
      );
    });

    describeUnstorable(() => target);
    describeStoredRecords(() => target);
  });
}
