import { describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { runCli } from '../support/cli-process.js';
import { deleteByHand, storedCalls } from '../support/sqlite-mirror.js';
import { runConfig, workspace } from '../worker/harness.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

interface Row {
  business: string;
  stream: string;
  stored?: number;
  upstream?: number | null;
  difference?: number | null;
  verdict?: string;
  missing?: number;
  extra?: number;
  written?: number;
  markedDeleted?: number;
  pendingDeletions?: number;
  heldDeletions?: { count: number; share: number };
  error?: string;
}

const upstreamCallIds = (sim: Simulator, business: string): string[] =>
  sim
    .truth(business)
    .calls.map((c) => String(c.id))
    .sort();

async function reconcile(config: string, ...flags: string[]): Promise<{ code: number | null; rows: Row[] }> {
  const result = await runCli(['reconcile', '--config', config, '--json', ...flags]);
  if (result.stdout === '') throw new Error(`reconcile printed nothing: ${result.stderr}`);
  return { code: result.code, rows: (JSON.parse(result.stdout) as { streams: Row[] }).streams };
}

/** The ids upstream lists right now (v1, whole list), as the sink would see them. */
async function listedIds(sim: Simulator, stream: 'calls' | 'numbers'): Promise<string[]> {
  const { baseUrl, businesses } = sim;
  const query = stream === 'calls' ? '?limit=500&offset=0' : '';
  const response = await fetch(`${baseUrl}/api/v1/${stream}${query}`, { headers: { authorization: `Bearer ${businesses[0]!.apiKey}` } });
  const body = (await response.json()) as { data: Record<string, Array<{ id: string | number }>> };
  return (body.data[stream] ?? []).map((record) => String(record.id));
}

const byKey = (rows: readonly Row[]): Map<string, Row> => new Map(rows.map((row) => [`${row.business}/${row.stream}`, row]));

describe('callsync reconcile', () => {
  const cleanup = cleanupSteps();

  it('reports rows deleted by hand and records deleted upstream (exit 1); --repair makes the sink exact; a second run exits 0', async () => {
    const sim = await startSimulator({ businesses: 2, calls: 90, voicemails: 5, numbers: 3, rateLimit: { limit: 100, windowMs: 1000 } });
    const ws = workspace('reconcile');
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
    );
    // Deletions below the guard wait for a second whole walk at least deleteAfter later; here 1 ms.
    const config = ws.writeConfig(
      runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, rateLimit: { requests: 100, perMs: 1000 }, reconcile: { deleteAfter: '1ms' } }),
    );
    expect((await runCli(['backfill', '--config', config, '--no-progress'])).code).toBe(0);

    const lostByHand = upstreamCallIds(sim, 'biz-1').slice(10, 13);
    deleteByHand(ws.dbPath, 'biz-1', lostByHand);
    const goneUpstream = upstreamCallIds(sim, 'biz-2').slice(40, 42);
    sim.deleteCalls('biz-2', goneUpstream);

    const before = await reconcile(config);
    expect(before.code).toBe(1);
    const found = byKey(before.rows);
    expect(found.get('biz-1/calls')).toMatchObject({ stored: 87, upstream: 90, difference: 3, verdict: 'differs' });
    expect(found.get('biz-2/calls')).toMatchObject({ stored: 90, upstream: 88, difference: -2, verdict: 'differs' });
    expect(found.get('biz-1/numbers')).toMatchObject({ stored: 3, upstream: 3, difference: 0, verdict: 'ok' });
    for (const business of ['biz-1', 'biz-2']) expect(found.get(`${business}/voicemails`)).toMatchObject({ upstream: null, verdict: 'not_verifiable' });
    const table = await runCli(['reconcile', '--config', config]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/biz-1\s+calls\s+87\s+90\s+\+3\s+differs/);

    const firstWalk = await reconcile(config, '--repair');
    const first = byKey(firstWalk.rows);
    expect(first.get('biz-1/calls')).toMatchObject({ missing: 3, extra: 0, written: 3, markedDeleted: 0, difference: 0, verdict: 'ok' });
    expect(first.get('biz-2/calls')).toMatchObject({ missing: 0, extra: 2, markedDeleted: 0, pendingDeletions: 2, difference: -2, verdict: 'differs' });
    expect(firstWalk.code).toBe(1);
    expect(storedCalls(ws.dbPath, 'biz-2').deleted).toEqual([]);

    const repaired = await reconcile(config, '--repair');
    const fixed = byKey(repaired.rows);
    expect(fixed.get('biz-2/calls')).toMatchObject({ missing: 0, extra: 2, written: 0, markedDeleted: 2, difference: 0, verdict: 'ok' });
    expect(repaired.code).toBe(0);
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: upstreamCallIds(sim, 'biz-1'), deleted: [] });
    expect(storedCalls(ws.dbPath, 'biz-2')).toEqual({ live: upstreamCallIds(sim, 'biz-2'), deleted: goneUpstream });

    const after = await reconcile(config);
    expect(after.code).toBe(0);
    expect(after.rows.filter((row) => row.verdict === 'differs' || row.error !== undefined)).toEqual([]);
  });

  it('an upstream answering a third of each list (200 of 600, total 200): --repair marks nothing and says how to confirm (exit 1); --confirm-deletions marks exactly the 400; recovered, a sync restores what it sees and a repair the rest', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 600, voicemails: 2, numbers: 3, rateLimit: false });
    const ws = workspace('reconcile-shrunk');
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
    );
    const config = ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, pageSize: 100 }));
    expect((await runCli(['backfill', '--config', config, '--no-progress'])).code).toBe(0);
    const all = upstreamCallIds(sim, 'biz-1');
    const numbers = sim
      .truth('biz-1')
      .numbers.map((n) => String(n.id))
      .sort();

    sim.setHostile({ listShare: 1 / 3 });
    const table = await runCli(['reconcile', '--config', config, '--repair']);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('biz-1/calls: 400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions`');
    expect(table.stdout).toContain('biz-1/numbers: 2 records would be marked deleted (66.7 %)');
    const held = byKey((await reconcile(config, '--repair')).rows);
    expect(held.get('biz-1/calls')).toMatchObject({
      stored: 600,
      upstream: 200,
      extra: 400,
      markedDeleted: 0,
      heldDeletions: { count: 400 },
      verdict: 'differs',
    });
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all, deleted: [] });
    expect(storedCalls(ws.dbPath, 'biz-1', 'numbers').deleted).toEqual([]);

    const unconfirmable = await runCli(['reconcile', '--config', config, '--confirm-deletions']);
    expect(unconfirmable.code).toBe(2);
    expect(unconfirmable.stderr).toContain('fix: run callsync reconcile --repair --confirm-deletions');

    const listedCalls = new Set((await listedIds(sim, 'calls')).sort());
    const listedNumbers = new Set(await listedIds(sim, 'numbers'));
    const confirmed = await reconcile(config, '--repair', '--confirm-deletions');
    expect(confirmed.code).toBe(0);
    expect(byKey(confirmed.rows).get('biz-1/calls')).toMatchObject({ markedDeleted: 400, difference: 0, verdict: 'ok' });
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all.filter((id) => listedCalls.has(id)), deleted: all.filter((id) => !listedCalls.has(id)) });
    expect(storedCalls(ws.dbPath, 'biz-1', 'numbers').deleted).toEqual(numbers.filter((id) => !listedNumbers.has(id)));

    // Upstream recovers: the next sync of numbers (a full list every time) sees them and restores them.
    sim.setHostile({ listShare: 1 });
    expect((await runCli(['backfill', '--config', config, '--no-progress'])).code).toBe(0);
    expect(storedCalls(ws.dbPath, 'biz-1', 'numbers')).toEqual({ live: numbers, deleted: [] });
    // An incremental calls sync does not read old calls again; the repair walk stores them, restored.
    const restored = await reconcile(config, '--repair');
    expect(byKey(restored.rows).get('biz-1/calls')).toMatchObject({ missing: 400, written: 400, difference: 0, verdict: 'ok' });
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all, deleted: [] });
    expect(restored.code).toBe(0);
  });

  it('names a filter that matches nothing and exits 2, for reconcile and backfill alike', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 5, voicemails: 1, numbers: 1 });
    const ws = workspace('reconcile-filter');
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
    );
    const config = ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath }));
    for (const command of ['reconcile', 'backfill']) {
      const result = await runCli([command, '--config', config, '--business', 'nobody']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`nothing to ${command === 'reconcile' ? 'reconcile' : 'sync'} for --business nobody --stream *`);
      expect(result.stdout).toBe('');
    }
  });
});
