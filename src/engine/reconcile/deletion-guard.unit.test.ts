import { describe, expect, it } from 'vitest';
import type { Sink } from '../../sink/sink.js';
import { describeDrift } from './check.js';
import { base, memorySink, offsetList, sourceOf } from '../../../test/support/reconcile-fixtures.js';
import { decodeDeletions, encodeDeletions, repairStream, type DeletionGuard } from './repair.js';

const HOUR = 3_600_000;
const guard: DeletionGuard = { maxShare: 0.1, afterMs: HOUR, confirmed: false };
const ids = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `r${String(from + i).padStart(4, '0')}`);

/** A repair at a given clock, with the warnings it gave. */
function repairAt(sink: Sink, listed: readonly string[], nowMs: number, overrides: Partial<DeletionGuard> = {}) {
  const warnings: string[] = [];
  const { fetch } = offsetList(listed);
  const run = repairStream({
    ...base,
    source: sourceOf(fetch, { pageSize: 50 }),
    sink,
    repair: true,
    guard: { ...guard, ...overrides },
    now: () => nowMs,
    onWarning: (m) => warnings.push(m),
  });
  return run.then((check) => ({ check, warnings }));
}

describe('the deletion guard', () => {
  it('a shrunken list (200 of 600 listed, total 200) marks nothing, says how many and how to confirm; confirmed, it marks exactly the 400', async () => {
    const all = ids(600);
    const listed = all.filter((_, i) => i % 3 === 0);
    const { sink, deleted, deletions } = await memorySink(all);
    const { check, warnings } = await repairAt(sink, listed, 0);
    expect(deleted()).toEqual([]);
    expect(check).toMatchObject({ upstream: 200, extra: 400, markedDeleted: 0, heldDeletions: { count: 400 }, verdict: 'differs' });
    const message = '400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions`';
    expect(warnings).toContain(message);
    expect(describeDrift(check)).toContain(message);
    expect((await deletions()).held).toMatchObject({ count: 400 });

    const confirmed = await repairAt(sink, listed, 1, { confirmed: true });
    expect(confirmed.check).toMatchObject({ markedDeleted: 400, verdict: 'ok' });
    expect(deleted()).toEqual(all.filter((_, i) => i % 3 !== 0));
    expect(await deletions()).toEqual({ candidates: new Map(), held: null });
  });

  it('holds more than maxDeleteCount even under the share', async () => {
    const all = ids(100);
    const { sink, deleted } = await memorySink(all);
    const { check } = await repairAt(sink, all.slice(5), 0, { maxCount: 4 });
    expect(check.heldDeletions).toEqual({ count: 5, share: 0.05 });
    expect(deleted()).toEqual([]);
  });

  it('below the threshold, marks a record only when two whole walks at least deleteAfter apart both missed it', async () => {
    const all = ids(100);
    const { sink, deleted } = await memorySink(all);
    const listed = all.filter((id) => id !== 'r0010' && id !== 'r0020');

    const first = await repairAt(sink, listed, 0);
    expect(first.check).toMatchObject({ markedDeleted: 0, pendingDeletions: 2, verdict: 'differs' });
    expect(first.warnings.join()).toContain('2 records upstream no longer lists are marked deleted by a whole walk from 1970-01-01T01:00:00.000Z on');

    const tooSoon = await repairAt(sink, listed, HOUR - 1);
    expect(tooSoon.check).toMatchObject({ markedDeleted: 0, pendingDeletions: 2 });
    expect(deleted()).toEqual([]);

    const due = await repairAt(sink, listed, HOUR);
    expect(due.check).toMatchObject({ markedDeleted: 2, verdict: 'ok' });
    expect(due.check.pendingDeletions).toBeUndefined();
    expect(deleted()).toEqual(['r0010', 'r0020']);
  });

  it('drops a candidate a later walk lists again: missed again later, its wait starts afresh', async () => {
    const all = ids(100);
    const { sink, deleted } = await memorySink(all);
    const without = (...gone: string[]) => all.filter((id) => !gone.includes(id));

    await repairAt(sink, without('r0001', 'r0002'), 0);
    const second = await repairAt(sink, without('r0002'), HOUR);
    expect(second.check).toMatchObject({ markedDeleted: 1 });
    expect(deleted()).toEqual(['r0002']);

    const third = await repairAt(sink, without('r0001', 'r0002'), 2 * HOUR);
    expect(third.check).toMatchObject({ markedDeleted: 0, pendingDeletions: 1 });
    expect(deleted()).not.toContain('r0001');
  });

  it('a walk that is not whole marks nothing but still drops the candidates it saw', async () => {
    const all = ids(100);
    const { sink, deleted, deletions } = await memorySink(all);
    await repairAt(
      sink,
      all.filter((id) => id !== 'r0001' && id !== 'r0002'),
      0,
    );
    // Upstream's total disagrees with what the walk saw: nothing is proven missing.
    const partial = offsetList(
      all.filter((id) => id !== 'r0002'),
      98,
    );
    const check = await repairStream({
      ...base,
      source: sourceOf(partial.fetch, { pageSize: 50 }),
      sink,
      repair: true,
      guard,
      now: () => HOUR,
    });
    expect(check.markedDeleted).toBe(0);
    expect(deleted()).toEqual([]);
    expect([...(await deletions()).candidates.keys()]).toEqual(['r0002']);
  });

  it('keeps its memory as a checkpoint position, grouped by the time first missed', () => {
    const state = {
      candidates: new Map([
        ['a', 5],
        ['b', 5],
        ['c', 9],
      ]),
      held: { count: 3, share: 0.5 },
    };
    const position = encodeDeletions(state);
    expect(position).toEqual({
      groups: [
        { since: 5, ids: ['a', 'b'] },
        { since: 9, ids: ['c'] },
      ],
      held: { count: 3, share: 0.5 },
    });
    expect(decodeDeletions(position, 'acme/sms:deletions')).toEqual(state);
    expect(() => decodeDeletions({ groups: 'x' }, 'acme/sms:deletions')).toThrow(/sync_state row acme\/sms:deletions does not parse .*fix: delete that row/);
  });
});
