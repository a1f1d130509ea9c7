import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backfillOnce, testConfig, total } from '../support/backfill-harness.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

interface CheckpointRow {
  readonly business_id: string;
  readonly stream: string;
  readonly position: string;
  readonly records_synced: number;
  readonly updated_at: string;
}

function checkpoints(path: string): CheckpointRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('select business_id, stream, position, records_synced, updated_at from sync_state order by business_id, stream').all() as CheckpointRow[];
  } finally {
    db.close();
  }
}

// The specification is silent on whether a cursor names a position or one answer; an idle poll
// must lose nothing either way, and write nothing where the server gives it nothing new to keep.
describe.each<{ cursors: 'stable' | 'fresh'; rewritten: readonly string[] }>([
  { cursors: 'stable', rewritten: [] },
  { cursors: 'fresh', rewritten: ['calls'] },
])('an idle poll of a server whose cursors are $cursors', ({ cursors, rewritten }) => {
  const scene = simulatorScene(`idle-${cursors}`, { businesses: 2, calls: 700, voicemails: 30, numbers: 4, seed: 5, cursors, rateLimit: false });

  it(`writes no record, and rewrites the checkpoint of ${rewritten.length === 0 ? 'no stream' : rewritten.join(', ')} only`, async () => {
    const { simulator, databasePath } = scene;
    expect(total(await backfillOnce(testConfig(simulator, databasePath)), 'written')).toBe(2 * (700 + 30 + 4));
    const before = checkpoints(databasePath);
    // Far enough apart that a rewritten row's updated_at (milliseconds) cannot equal the first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(total(await backfillOnce(testConfig(simulator, databasePath)), 'written')).toBe(0);
    const after = checkpoints(databasePath);
    expect(after).toHaveLength(6);
    after.forEach((row, i) => {
      const was = before[i];
      expect(row.records_synced).toBe(was?.records_synced);
      if (rewritten.includes(row.stream)) expect(row.updated_at).not.toBe(was?.updated_at);
      else expect(row).toEqual(was);
    });
    expectMirrorExact(databasePath, simulator);
  });
});
