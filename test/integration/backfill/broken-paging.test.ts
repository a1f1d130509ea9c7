import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineConfig } from '../../../src/entry/cli/demo/demo-config.js';
import { startSimulator, type BrokenPaging, type Simulator } from '../../../simulator/index.js';
import { backfillOnce, configDocument } from '../support/backfill-harness.js';

/** `/calls` walked three ways: the built-in cursor stream and two extra streams by offset and by page. */
const EXTRA_STREAMS = [
  { name: 'calls_by_offset', path: '/calls', recordsKey: 'calls', paging: 'offset', createdAtField: 'created_at' },
  { name: 'calls_by_page', path: '/calls', recordsKey: 'calls', paging: 'page', createdAtField: 'created_at' },
];

function config(simulator: Simulator, databasePath: string, stream: string, upstream: Record<string, unknown> = {}) {
  const base = configDocument(simulator, databasePath, { pageSize: 100, rateLimit: false, streams: [stream] });
  return inlineConfig({ ...base, upstream: { ...base.upstream, ...upstream }, streams: EXTRA_STREAMS }, '(test)');
}

function stored(databasePath: string, table: string): { ids: Set<string>; offset: number } {
  const database = new Database(databasePath, { readonly: true });
  try {
    const ids = database.prepare(`select id from "${table}" where business_id = 'biz-1'`).pluck().all() as string[];
    const row = database.prepare('select position from sync_state where business_id = ? and stream = ?').get('biz-1', table) as
      { position: string } | undefined;
    const position = row === undefined ? {} : (JSON.parse(row.position) as { offset?: number });
    return { ids: new Set(ids), offset: position.offset ?? 0 };
  } finally {
    database.close();
  }
}

const OFF: BrokenPaging = { stuckCursor: false, cyclingCursor: false, emptyPagesForever: false, ignoreOffset: false, negativeTotal: false };

describe.each(['oldest', 'newest'] as const)('a v1 list %s first whose paging breaks the contract', (v1Order) => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 500, voicemails: 1, numbers: 1, seed: 31, v1Order, rateLimit: false });
    directory = mkdtempSync(join(tmpdir(), 'callsync-broken-paging-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it.each([
    ['calls', { stuckCursor: true }, /GET \/calls: next_cursor repeats the cursor just sent/],
    ['calls', { cyclingCursor: true }, /GET \/calls: page 4 repeats page 2 of this walk .*the cursors cycle/],
    ['calls', { emptyPagesForever: true }, /GET \/calls: the server says there are more records but sent an empty page/],
    ['calls_by_offset', { emptyPagesForever: true }, /GET \/calls: the server says there are more records but sent an empty page/],
    ['calls_by_offset', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
    ['calls_by_page', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
    ['calls_by_offset', { negativeTotal: true }, /GET \/calls: "total" is -1, not a count of records/],
  ] as const)('%s with %j: a named stop, no loop, the position within what is stored; exact once fixed', async (stream, broken, message) => {
    const databasePath = join(directory, `${stream}-${Object.keys(broken).join()}.db`);
    simulator.setBrokenPaging({ ...OFF, ...broken });
    simulator.resetCounters();
    const run = await backfillOnce(config(simulator, databasePath, stream));
    const failure = run.outcomes[0]?.streams[0]?.failure;
    expect(failure?.kind).toBe('contract');
    expect(failure?.message).toMatch(message);
    // 500 calls are 5 pages of 100: a loop would show as many more requests.
    expect(simulator.counters().businesses['biz-1']?.apiKeyRequests).toBeLessThanOrEqual(8);
    const before = stored(databasePath, stream);
    expect(before.offset).toBeLessThanOrEqual(before.ids.size);

    simulator.setBrokenPaging(OFF);
    const fixed = await backfillOnce(config(simulator, databasePath, stream));
    expect(fixed.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    const after = stored(databasePath, stream);
    const truth = simulator.truth('biz-1').calls.map((call) => call.id);
    expect(truth.filter((id) => !after.ids.has(id))).toEqual([]);
    expect(after.ids.size).toBe(truth.length);
  });
});

describe.each(['oldest', 'newest'] as const)('a v1 list %s first whose server caps the page size silently', (v1Order) => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 1_000, voicemails: 1, numbers: 1, seed: 33, v1Order, v1LimitCap: 100, rateLimit: false });
    directory = mkdtempSync(join(tmpdir(), 'callsync-capped-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it.each(['calls', 'calls_by_offset', 'calls_by_page'])('%s: adopts the cap and misses nothing, also after arrivals', async (stream) => {
    const databasePath = join(directory, `${stream}.db`);
    const first = await backfillOnce(config(simulator, databasePath, stream, { pageSize: 500 }));
    expect(first.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    expect(first.warnings.some((warning) => /caps the page size, going on with 100/.test(warning))).toBe(true);
    simulator.addCalls('biz-1', 250);
    await backfillOnce(config(simulator, databasePath, stream, { pageSize: 500 }));
    const after = stored(databasePath, stream);
    const truth = simulator.truth('biz-1').calls.map((call) => call.id);
    expect(truth.filter((id) => !after.ids.has(id))).toEqual([]);
  });
});
