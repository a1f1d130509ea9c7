import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineConfig } from '../../../src/entry/cli/demo/demo-config.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { backfillOnce, configDocument } from '../support/backfill-harness.js';

/** `/calls` walked three ways: the built-in cursor stream and two extra streams by offset and by page. */
const EXTRA_STREAMS = [
  { name: 'calls_by_offset', path: '/calls', recordsKey: 'calls', paging: 'offset', createdAtField: 'created_at' },
  { name: 'calls_by_page', path: '/calls', recordsKey: 'calls', paging: 'page', createdAtField: 'created_at' },
];

function config(simulator: Simulator, databasePath: string, stream: string) {
  const base = configDocument(simulator, databasePath, { pageSize: 500, rateLimit: false, streams: [stream] });
  return inlineConfig({ ...base, streams: EXTRA_STREAMS }, '(test)');
}

function stored(databasePath: string, table: string): { ids: Set<string>; pageCap: unknown } {
  const database = new Database(databasePath, { readonly: true });
  try {
    const ids = database.prepare(`select id from "${table}" where business_id = 'biz-1'`).pluck().all() as string[];
    const row = database.prepare('select position from sync_state where business_id = ? and stream = ?').get('biz-1', table) as { position: string };
    return { ids: new Set(ids), pageCap: (JSON.parse(row.position) as { pageCap?: unknown }).pageCap };
  } finally {
    database.close();
  }
}

function requests(simulator: Simulator): number {
  return simulator.counters().businesses['biz-1']?.apiKeyRequests ?? 0;
}

describe.each(['oldest', 'newest'] as const)('one answer of a v1 list %s first cut to 1 record with more to come', (v1Order) => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 2_000, voicemails: 1, numbers: 1, seed: 37, v1Order, rateLimit: false });
    directory = mkdtempSync(join(tmpdir(), 'callsync-short-page-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it.each(['calls', 'calls_by_offset', 'calls_by_page'])('%s: 2,000 records in at most 20 requests; later runs ask the configured size', async (stream) => {
    const databasePath = join(directory, `${stream}.db`);
    simulator.resetCounters();
    simulator.setHostile({ shortPages: { pages: 1, records: 1 } });
    const first = await backfillOnce(config(simulator, databasePath, stream));
    expect(first.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    // One short page says nothing about a cap: nothing warned, nothing stored that lowers later walks.
    expect(first.warnings).toEqual([]);
    expect(requests(simulator)).toBeLessThanOrEqual(20);
    const missing = (): string[] => {
      const { ids } = stored(databasePath, stream);
      return simulator
        .truth('biz-1')
        .calls.map((call) => call.id)
        .filter((id) => !ids.has(id));
    };
    expect(missing()).toEqual([]);
    expect(stored(databasePath, stream).pageCap).toBeUndefined();

    simulator.addCalls('biz-1', 500);
    simulator.resetCounters();
    await backfillOnce(config(simulator, databasePath, stream));
    expect(missing()).toEqual([]);
    // 500 new records at 500 a page: the page with them and at most one more (the overlap or the end).
    expect(requests(simulator)).toBeLessThanOrEqual(3);
  });
});
