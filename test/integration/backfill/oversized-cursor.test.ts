import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { backfillOnce, configDocument, testConfig } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';

const TWO_MIB = 2 * 1024 * 1024;

function position(databasePath: string): string {
  const database = new Database(databasePath, { readonly: true });
  try {
    const row = database.prepare("select position from sync_state where business_id = 'biz-1' and stream = 'calls'").get() as { position: string };
    return row.position;
  } finally {
    database.close();
  }
}

function setPosition(databasePath: string, value: string): void {
  const database = new Database(databasePath);
  try {
    database.prepare("update sync_state set position = ? where business_id = 'biz-1' and stream = 'calls'").run(value);
  } finally {
    database.close();
  }
}

function missing(databasePath: string, simulator: Simulator): string[] {
  const database = new Database(databasePath, { readonly: true });
  try {
    const ids = new Set(database.prepare("select id from calls where business_id = 'biz-1'").pluck().all() as string[]);
    return simulator
      .truth('biz-1')
      .calls.map((call) => call.id)
      .filter((id) => !ids.has(id));
  } finally {
    database.close();
  }
}

describe('an upstream that sends a 2 MiB next_cursor', () => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 1_200, voicemails: 1, numbers: 1, seed: 41, rateLimit: false });
    directory = mkdtempSync(join(tmpdir(), 'callsync-huge-cursor-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('stops the stream naming it, with a fix, stores nothing of it, and the next run is not wedged', async () => {
    const databasePath = join(directory, 'mirror.db');
    const config = testConfig(simulator, databasePath, { streams: ['calls'], rateLimit: false });
    await backfillOnce(config);
    const good = position(databasePath);

    simulator.addCalls('biz-1', 700);
    simulator.setHostile({ hugeCursorBytes: TWO_MIB });
    const refused = await backfillOnce(config);
    const failure = refused.outcomes[0]?.streams[0]?.failure;
    expect(failure?.kind).toBe('contract');
    expect(failure?.message).toMatch(/^stream "calls": GET \/calls sent a next_cursor of 2097152 bytes, over the 8192 a cursor may have; it was not stored/);
    expect(failure?.fix).toMatch(/report it to the upstream provider/);
    expect(position(databasePath)).toBe(good);

    simulator.setHostile({ hugeCursorBytes: 0 });
    const next = await backfillOnce(config);
    expect(next.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    expect(missing(databasePath, simulator)).toEqual([]);
  });

  it('`callsync backfill` names the stream and prints the fix line', async () => {
    const configPath = join(directory, 'cli.json');
    writeFileSync(configPath, JSON.stringify(configDocument(simulator, join(directory, 'cli.db'), { streams: ['calls'], rateLimit: false })));
    simulator.setHostile({ hugeCursorBytes: TWO_MIB });
    try {
      const result = await runCli(['backfill', '--config', configPath, '--no-progress']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /business biz-1 failed: contract: stream "calls": GET \/calls sent a next_cursor of 2097152 bytes.*\n {2}fix: the upstream's cursors are too long/,
      );
    } finally {
      simulator.setHostile({ hugeCursorBytes: 0 });
    }
  });

  it('a stored cursor too long to send (as an older version stored it) is dropped: the run resumes by offset', async () => {
    const databasePath = join(directory, 'stored.db');
    const config = testConfig(simulator, databasePath, { streams: ['calls'], rateLimit: false });
    await backfillOnce(config);
    const stored = JSON.parse(position(databasePath)) as { mode: string; cursor: string; offset: number };
    expect(stored.mode).toBe('cursor');
    setPosition(databasePath, JSON.stringify({ ...stored, cursor: stored.cursor.padEnd(TWO_MIB, '.') }));

    simulator.addCalls('biz-1', 300);
    const run = await backfillOnce(config);
    expect(run.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    expect(run.warnings).toEqual([
      `biz-1/calls: /calls: the stored cursor is ${TWO_MIB} bytes, over the 8192 a cursor may have; resuming by offset from ${stored.offset}`,
    ]);
    expect(missing(databasePath, simulator)).toEqual([]);
    expect(position(databasePath).length).toBeLessThan(1_000);
  });
});
