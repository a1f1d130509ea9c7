import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { backfillScene, writeBackfillConfig } from './support/backfill-scene.js';
import { SecretScanner } from './support/secret-scanner.js';
import { diffSqlite } from './support/sqlite-figures.js';

const DEPTH = 6_000;
// The deep call sits mid-history, inside a page of 100 (calls 700–799 of 1,500).
const FIRST_INDEX = 740;
const scanner = new SecretScanner();
const scene = backfillScene(scanner, 'hostile', {
  businesses: 2,
  calls: 1_500,
  voicemails: 40,
  numbers: 3,
  seed: 1_515,
  rateLimit: { limit: 100, windowMs: 1000 },
  hostileRecords: { deepNesting: DEPTH, firstIndex: FIRST_INDEX },
});

interface DeadLetterRow {
  readonly business_id: string;
  readonly stream: string;
  readonly reason: string;
  readonly raw: string;
  readonly attempts: number;
}

function deadLetters(databasePath: string): DeadLetterRow[] {
  const database = new Database(databasePath, { readonly: true });
  try {
    return database.prepare('select business_id, stream, reason, raw, attempts from dead_letters order by business_id, first_seen_at').all() as DeadLetterRow[];
  } finally {
    database.close();
  }
}

describe(`scenario 15: a record nested ${DEPTH.toLocaleString('en-US')} deep`, () => {
  it('becomes one dead letter with its reason, the rest of its page and stream is stored, and the next run is clean', async () => {
    const { simulator, directory } = scene;
    const { configPath, databasePath } = writeBackfillConfig(directory, simulator, 'hostile', { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 } });
    const hostile = new Set(simulator.businesses.map((b) => `${b.name}/${simulator.truth(b.name).calls[FIRST_INDEX]!.id}`));

    const first = await runCli(['backfill', '--config', configPath, '--no-progress']);
    // One more arrives between runs, behind ordinary new calls: its page too is stored around it.
    const arrived = simulator.addHostileCalls('biz-1', { deepNesting: DEPTH });
    simulator.addCalls('biz-1', 30);
    for (const id of arrived) hostile.add(`biz-1/${id}`);
    const second = await runCli(['backfill', '--config', configPath, '--no-progress']);
    const third = await runCli(['backfill', '--config', configPath, '--no-progress']);
    for (const [label, run] of [
      ['first', first],
      ['second', second],
      ['third', third],
    ] as const) {
      scanner.collect(`${label} stdout`, run.stdout);
      scanner.collect(`${label} stderr`, run.stderr);
    }
    scanner.collectSqlite('sink', databasePath);
    const letters = deadLetters(databasePath);
    const diffs = diffSqlite(databasePath, simulator, ['calls', 'voicemails', 'numbers'], undefined, hostile);
    recordRow({
      scenario: `15 a record nested ${DEPTH} deep (3, one arriving later)`,
      faults: { deepRecord: hostile.size },
      restarts: 0,
      ...figuresOf(diffs),
      note: `3 runs, each exit 0; ${letters.length} dead letters`,
    });

    for (const run of [first, second, third]) expect(run.code, run.stderr).toBe(0);
    expect(letters.map((l) => [l.business_id, l.stream, l.attempts])).toEqual([
      ['biz-1', 'calls', 1],
      ['biz-1', 'calls', 1],
      ['biz-2', 'calls', 1],
    ]);
    for (const letter of letters) expect(letter.reason).toMatch(/nested deeper than/);
    for (const key of hostile) {
      const [business, id] = key.split('/') as [string, string];
      expect(
        letters.filter((l) => l.business_id === business && l.raw.includes(id)),
        key,
      ).toHaveLength(1);
    }
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('hostile-records').leaks).toEqual([]);
  });
});
