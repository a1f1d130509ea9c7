import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type BrokenPaging, type Simulator } from '../../simulator/index.js';
import { inlineConfig } from '../../src/entry/cli/demo/demo-config.js';
import { backfillOnce, configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { diffMirror, readSqliteTable } from '../integration/support/sqlite-mirror.js';
import { expectExact, figuresOf, type CountedDiff } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { countRows } from './support/sqlite-figures.js';

/** `/calls` walked three ways: the built-in cursor stream and two extra streams by offset and by page. */
const EXTRA_STREAMS = [
  { name: 'calls_by_offset', path: '/calls', recordsKey: 'calls', paging: 'offset', createdAtField: 'created_at' },
  { name: 'calls_by_page', path: '/calls', recordsKey: 'calls', paging: 'page', createdAtField: 'created_at' },
];
const OFF: BrokenPaging = { stuckCursor: false, cyclingCursor: false, emptyPagesForever: false, ignoreOffset: false, negativeTotal: false };
// Each broken server, the stream walking it, and the symptom its stop must name.
const BROKEN: ReadonlyArray<readonly [string, Partial<BrokenPaging>, RegExp]> = [
  // Cycling first: on the oldest-first server, where a cursor pointing back once left the offset counted ahead.
  ['calls', { cyclingCursor: true }, /GET \/calls: page \d+ repeats page \d+ of this walk/],
  ['calls', { stuckCursor: true }, /GET \/calls: next_cursor repeats the cursor just sent/],
  ['calls', { emptyPagesForever: true }, /GET \/calls: the server says there are more records but sent an empty page/],
  ['calls_by_offset', { emptyPagesForever: true }, /GET \/calls: the server says there are more records but sent an empty page/],
  ['calls_by_offset', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
  ['calls_by_page', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
  ['calls_by_offset', { negativeTotal: true }, /GET \/calls: "total" is -1, not a count of records/],
];
const CALLS = 600;
const PAGE = 100;
// Cursors expire: after a cursor stream is fixed, arrivals and an expiry make the next run fall
// back to the stored offset, which is exact only if the stop left cursor and offset agreeing.
const CURSOR_TTL_MS = 3_000;
const scanner = new SecretScanner();

/** Ids and `raw` of one table against the truth's calls (extra streams keep no call columns). */
function diffCalls(databasePath: string, table: string, simulator: Simulator): CountedDiff {
  const truth = simulator.truth('biz-1').calls;
  const rows = readSqliteTable(databasePath, table, 'biz-1');
  const diff = diffMirror(rows, table === 'calls' ? truth : truth.map((record) => ({ ...record, expected: {} })));
  return { diff, expected: truth.length, stored: rows.length, distinct: new Set(rows.map((row) => row.id)).size };
}

function storedOffset(databasePath: string, table: string): number {
  const database = new Database(databasePath, { readonly: true });
  try {
    const row = database.prepare("select position from sync_state where business_id = 'biz-1' and stream = ?").get(table) as { position: string } | undefined;
    return row === undefined ? 0 : ((JSON.parse(row.position) as { offset?: number }).offset ?? 0);
  } finally {
    database.close();
  }
}

describe('scenario 14: v1 servers whose paging breaks the contract, oldest and newest first', () => {
  const simulators: Simulator[] = [];
  let directory: string;

  beforeAll(async () => {
    for (const v1Order of ['oldest', 'newest'] as const) {
      const simulator = await startSimulator({
        businesses: 1,
        calls: CALLS,
        voicemails: 5,
        numbers: 2,
        seed: 1_414,
        v1Order,
        cursorTtlMs: CURSOR_TTL_MS,
        rateLimit: false,
      });
      scanner.addSimulator(simulator);
      simulators.push(simulator);
    }
    directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-paging-'));
  });

  afterAll(async () => {
    for (const simulator of simulators) await simulator.close();
  });

  it('each ends in a stop naming the symptom (exit 1, never ok with records missing) within a few requests, and exact once fixed', async () => {
    const diffs: Record<string, CountedDiff> = {};
    let requests = 0;
    for (const [index, [stream, broken, symptom]] of BROKEN.entries()) {
      // The servers take turns at listing oldest and newest first.
      const simulator = simulators[index % 2]!;
      const label = `${stream} ${Object.keys(broken).join()} (${index % 2 === 0 ? 'oldest' : 'newest'} first)`;
      const databasePath = join(directory, `broken-${index}.db`);
      const configPath = join(directory, `broken-${index}.json`);
      const base = configDocument(simulator, databasePath, { pageSize: PAGE, rateLimit: false, streams: [stream] });
      const document = { ...base, streams: EXTRA_STREAMS };
      writeFileSync(configPath, JSON.stringify(document));
      simulator.setBrokenPaging({ ...OFF, ...broken });
      simulator.resetCounters();
      const stopped = await runCli(['backfill', '--config', configPath, '--no-progress']);
      scanner.collect(`${label} stdout`, stopped.stdout);
      scanner.collect(`${label} stderr`, stopped.stderr);
      const sent = simulator.counters().businesses['biz-1']?.apiKeyRequests ?? 0;
      requests += sent;
      expect(stopped.code, `${label}: ${stopped.stderr}`).toBe(1);
      expect(stopped.stderr, label).toMatch(new RegExp(`business biz-1 failed: contract: .*${symptom.source}`));
      // 600 calls (more after arrivals) are 6 pages of 100: a loop would show as many more requests.
      expect(sent, label).toBeLessThanOrEqual(Math.ceil(simulator.truth('biz-1').calls.length / PAGE) + 3);
      // What the stopped walk stored is true and once; the position it saved does not pass it.
      const partial = diffCalls(databasePath, stream, simulator);
      expect(partial.diff.unexpected, label).toEqual([]);
      expect(partial.diff.different, label).toEqual([]);
      expect(partial.stored, label).toBe(partial.distinct);
      expect(storedOffset(databasePath, stream), label).toBeLessThanOrEqual(countRows(databasePath, stream));

      simulator.setBrokenPaging(OFF);
      const fixed = await backfillOnce(inlineConfig(document, '(chaos)'));
      expect(fixed.outcomes[0]?.streams[0]?.failure, label).toBeUndefined();
      if (stream === 'calls') {
        simulator.addCalls('biz-1', 150);
        await sleep(CURSOR_TTL_MS + 500);
        const expired = await backfillOnce(inlineConfig(document, '(chaos)'));
        expect(expired.outcomes[0]?.streams[0]?.failure, `${label}, after a cursor expiry`).toBeUndefined();
      }
      scanner.collectSqlite(`${label} sink`, databasePath);
      diffs[label] = diffCalls(databasePath, stream, simulator);
    }
    recordRow({
      scenario: `14 broken paging (${BROKEN.length} servers, oldest and newest first), then fixed`,
      faults: { stuckCursor: 1, cyclingCursor: 1, emptyPages: 2, ignoredOffset: 2, negativeTotal: 1 },
      restarts: 0,
      ...figuresOf(diffs),
      note: `${BROKEN.length}/${BROKEN.length} stopped naming the symptom (exit 1) in ${requests} requests; exact once fixed (cursor streams: also after arrivals and a cursor expiry)`,
    });
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('broken-paging').leaks).toEqual([]);
  });
});
