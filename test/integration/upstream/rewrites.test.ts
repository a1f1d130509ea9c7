import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { runBackfill } from '../../../src/entry/cli/backfill/run-backfill.js';
import { inlineConfig, simulatorConfigDocument } from '../../../src/entry/cli/demo/demo-config.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import type { SyncEvent } from '../../../src/engine/sync/sync-event.js';

/** Stands for two bytes that are no UTF-8 (0xC3 opens a two-byte sequence, 0x28 cannot continue it). */
const BAD = '@@not-utf8@@';

/** An upstream answering `/api/v1/calls` with one page of exactly these bytes. */
async function serveCalls(body: Buffer): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function pageBytes(calls: readonly unknown[]): Buffer {
  const [before, after] = JSON.stringify({ data: { calls, total: calls.length, has_more: false } }).split(BAD);
  return Buffer.concat([Buffer.from(before ?? '', 'utf8'), Buffer.from([0xc3, 0x28]), Buffer.from(after ?? '', 'utf8')]);
}

describe('records rewritten on their way to the sink are said', () => {
  let simulator: Simulator;
  let upstream: { server: Server; baseUrl: string };
  let calls: Array<Record<string, unknown>>;

  beforeAll(async () => {
    // Real call records, as the simulator serves them, to build the hostile page from.
    simulator = await startSimulator({ businesses: 1, calls: 4, voicemails: 1, numbers: 1, seed: 43, rateLimit: false });
    calls = simulator.truth('biz-1').calls.map((call) => call.raw as Record<string, unknown>);
    const [first, second, third, fourth] = calls;
    const page = [
      { ...first, transcription_text: `The caller said ${BAD} and hung up` },
      second,
      { ...third, id: 1 },
      { ...fourth, id: '1', transcription_text: 'a different record under the same id' },
    ];
    upstream = await serveCalls(pageBytes(page));
  });

  afterAll(async () => {
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
    await simulator.close();
  });

  it('bytes that are not UTF-8 and two records sharing an id: a warning naming each id, and a count per reason', async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), 'callsync-rewrites-')), 'mirror.db');
    const endpoint = { ...simulator, baseUrl: upstream.baseUrl };
    const document = simulatorConfigDocument(endpoint, { sink: { type: 'sqlite', path: databasePath }, streams: ['calls'], upstream: { rateLimit: false } });
    const config = inlineConfig({ ...document, log: { level: 'warn' } }, '(test)');
    const events: SyncEvent[] = [];
    const sink = await createSink(config.sink, { logger: pino({ level: 'silent' }) });
    try {
      const outcomes = await runBackfill({
        config,
        plans: planBusinesses(config),
        sink,
        reporter: { event: (_business, event) => events.push(event), stop: () => undefined },
      });
      expect(outcomes[0]?.streams[0]?.failure).toBeUndefined();
    } finally {
      await sink.close();
    }
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    expect(warnings).toEqual([
      `GET /calls: 1 record(s) came with bytes that are not UTF-8, stored in raw as U+FFFD: ${JSON.stringify(calls[0]?.id)}; the upstream sent text in another encoding or corrupted it`,
      'GET /calls: records that differ share an id on one page, so one row keeps the later of them: "1"',
    ]);
    const rewrites = events.flatMap((event) => (event.type === 'rewrite' ? [{ reason: event.reason, count: event.count }] : []));
    expect(rewrites).toEqual([
      { reason: 'invalid_utf8', count: 1 },
      { reason: 'merged_id', count: 1 },
    ]);
    // What was stored is what the warnings say: U+FFFD in raw, one row for id "1" (the later record).
    const database = new Database(databasePath, { readonly: true });
    try {
      const rows = database.prepare('select id, raw from calls order by id').all() as Array<{ id: string; raw: string }>;
      expect(rows).toHaveLength(3);
      expect(rows.find((row) => row.id === calls[0]?.id)?.raw).toContain('\uFFFD(');
      expect(rows.find((row) => row.id === '1')?.raw).toContain('a different record under the same id');
    } finally {
      database.close();
    }
  });
});
