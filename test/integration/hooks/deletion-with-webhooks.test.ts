import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { storedCalls } from '../support/sqlite-mirror.js';
import { spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';
import { countRows } from '../worker/measures.js';
import { hooksRunConfig, metricValue, SECRETS } from './run-hooks.js';

/**
 * With webhooks and a schedule far longer than the test (1 h), every run after the first start is
 * a webhook's. A deletion upstream is not data a webhook carries: it reaches the mirror through
 * reconciliation after runs, which needs three of them (docs/how-sync-works.md "In `run`, with no operator"):
 * the `call.deleted` delivery's run sees the difference, the next confirms the drift and walks,
 * the one after walks again past `deleteAfter` and marks it.
 */
describe('callsync run with webhooks: a call deleted upstream', () => {
  let sim: Simulator;
  let ws: ReturnType<typeof workspace>;
  let worker: RunProcess;

  beforeAll(async () => {
    sim = await startSimulator({ businesses: 1, calls: 60, voicemails: 5, numbers: 3, rateLimit: { limit: 100, windowMs: 1000 } });
    ws = workspace('hooks-deletion');
    worker = spawnRun(ws.writeConfig(hooksRunConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1h', reconcile: { deleteAfter: '1ms' } })));
    const url = await worker.url;
    sim.setWebhooks({ url: `${url}/hooks`, secret: SECRETS });
    await waitFor('the history', () => (countRows(ws.dbPath, 'calls') >= 60 ? true : undefined));
    await waitFor('the first syncs to end', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'schedule' })) >= 3 ? true : undefined,
    );
  });
  afterAll(async () => {
    await stopAll([worker]);
    await sim.close();
    await ws.cleanup();
  });

  const logged = (msg: string) => () => worker.logs.find((line) => line.msg === msg && line.stream === 'calls');

  it('is marked deleted by the third webhook-triggered run after it: the drift check and the deletion candidates survive between them', async () => {
    const gone = sim
      .truth('biz-1')
      .calls.map((call) => String(call.id))
      .sort()[10]!;
    sim.deleteCalls('biz-1', [gone]);
    // The delivery's own run: one difference is not yet a drift.
    expect(await waitFor('the first difference', logged('difference after this run; a drift if the next run sees one too'))).toMatchObject({ difference: -1 });
    expect(storedCalls(ws.dbPath, 'biz-1').deleted).toEqual([]);

    sim.addCalls('biz-1', 1);
    expect(await waitFor('the first walk', logged('drift remains after repair'))).toMatchObject({ difference: -1, markedDeleted: 0, pendingDeletions: 1 });
    expect(storedCalls(ws.dbPath, 'biz-1').deleted).toEqual([]);

    sim.addCalls('biz-1', 1);
    expect(await waitFor('the second walk', logged('drift repaired'))).toMatchObject({ difference: 0, markedDeleted: 1 });
    expect(storedCalls(ws.dbPath, 'biz-1').deleted).toEqual([gone]);
  });
});
