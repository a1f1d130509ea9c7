import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { diffSqliteAgainstSimulator, EXACT_MIRROR, summarizeDiffs } from '../support/sqlite-mirror.js';
import { spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';
import { countRows, hasCall } from '../worker/measures.js';
import { hooksRunConfig, metricValue, SECRETS, upstreamRequests, webhookSyncsIdle } from './run-hooks.js';

/**
 * One `callsync run` with a schedule far longer than any wait here (1 h): whatever arrives within
 * the test came through a webhook. How fast is a timing figure: the bench measures it (`fig-webhooks`).
 */
/** hooks.minInterval's default, which the config below keeps. */
const MIN_INTERVAL_MS = 1_000;

describe('callsync run with webhooks from the simulator', () => {
  let sim: Simulator;
  let ws: ReturnType<typeof workspace>;
  const processes: RunProcess[] = [];
  let url = '';

  beforeAll(async () => {
    sim = await startSimulator({ businesses: 2, calls: 40, voicemails: 4, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    ws = workspace('hooks');
    // 300 deliveries a minute per client address: more than any test here sends from one address
    // in a minute but the flood's, which meets the limit by its count, however slowly it is sent.
    const clientLimit = { requests: 300, perMs: 60_000 };
    processes.push(spawnRun(ws.writeConfig(hooksRunConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1h', clientLimit }))));
    url = await processes[0]!.url;
    sim.setWebhooks({ url: `${url}/hooks`, secret: SECRETS });
    // The first start polls every stream at once.
    await waitFor('the history', () => (countRows(ws.dbPath, 'calls') >= 80 ? true : undefined));
    await waitFor('the first syncs to end', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'schedule' })) >= 6 ? true : undefined,
    );
  });
  afterAll(async () => {
    await stopAll(processes);
    await sim.close();
    await ws.cleanup();
  });

  /** Scheduled syncs so far: one firing in a test (1 h schedule, random phase) is allowed for, not assumed away. */
  const scheduled = (): Promise<number> => metricValue(url, 'callsync_sync_runs_total', { trigger: 'schedule' });

  it('brings a new call through its webhook burst with at most one upstream request for its stream', async () => {
    const before = await scheduled();
    const webhookRunsBefore = await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' });
    sim.resetCounters();
    // A burst as a sender makes one: two calls ending together, one delivery each.
    sim.addCalls('biz-1', 1);
    sim.addCalls('biz-1', 1);
    const newest = sim.truth('biz-1').calls.at(-1)!.id;
    await waitFor(`call ${newest}`, () => (hasCall(ws.dbPath, 'biz-1', newest) ? true : undefined), 30_000, 50);
    await sim.webhooksSettled();
    await waitFor('the webhook sync to end', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) > webhookRunsBefore ? true : undefined,
    );
    // The payload's event maps to `calls`: one list request, nothing for the other streams.
    expect(upstreamRequests(sim, 'biz-1')).toBeLessThanOrEqual(1 + 3 * ((await scheduled()) - before));
    expect(sim.webhookCounters().byStatus).toEqual({ 202: 2 });
    expect(await metricValue(url, 'callsync_webhook_deliveries_total', { business: 'biz-1', outcome: 'accepted' })).toBe(2);
    const page = await (await fetch(`${url}/business/biz-1`)).text();
    expect(page).toMatch(/Last webhook: accepted, (just now|\d+(\.\d+)? ?s ago)/);
    const document = (await (await fetch(`${url}/status`)).json()) as { businesses: Array<{ name: string; lastWebhook: { outcome: string } | null }> };
    expect(document.businesses.find((b) => b.name === 'biz-1')?.lastWebhook?.outcome).toBe('accepted');
    expect(document.businesses.find((b) => b.name === 'biz-2')?.lastWebhook).toBeNull();
  });

  it('coalesces a burst of 100 deliveries: at most one sync per minInterval of the burst, plus one after it, within the budget', async () => {
    const runsBefore = await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' });
    sim.resetCounters();
    // Ten batches of ten, each sent once the one before was answered (ten at once stay under the
    // receiver's connections per client). However long the burst takes on this machine, a sync
    // starts at most once per minInterval while it lasts, and what arrived during the last one
    // leaves one more after it: the bound is read from the burst's own length, not from a window.
    const burstStart = performance.now();
    for (let batch = 0; batch < 10; batch++) {
      for (let i = 0; i < 10; i++) sim.addCalls('biz-1', 1);
      await sim.webhooksSettled();
    }
    const burstMs = performance.now() - burstStart;
    const newest = sim.truth('biz-1').calls.at(-1)!.id;
    await waitFor(`call ${newest}`, () => (hasCall(ws.dbPath, 'biz-1', newest) ? true : undefined), 30_000, 50);
    expect(sim.webhookCounters().byStatus).toEqual({ 202: 100 });
    // Whatever arrived during the last run leaves one more after it; let it end before counting.
    await webhookSyncsIdle(ws.prefix);
    const runs = (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) - runsBefore;
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2 + Math.floor(burstMs / MIN_INTERVAL_MS));
    expect(sim.counters().businesses['biz-1']?.rateLimited).toBe(0);
    expect(summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim, ['calls']))['biz-1/calls']).toBe(EXACT_MIRROR);
  });

  it('answers 100 replays of one signed delivery as duplicates: one webhook sync, at most 6 upstream requests', async () => {
    const webhookRuns = await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' });
    const before = await scheduled();
    sim.resetCounters();
    const body = '{"event":"call.created","id":"evt_replayed"}';
    const at = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'x-webhook-timestamp': String(at),
      'x-webhook-signature': createHmac('sha256', SECRETS['biz-1']!).update(`${at}.${body}`).digest('hex'),
    };
    const replayer = new Agent({ connect: { localAddress: '127.0.0.3' } });
    const statuses: number[] = [];
    try {
      // 20 a second, as the replays of issue 30 came: spread over several minIntervals, so coalescing alone cannot absorb them.
      for (let i = 0; i < 100; i++) {
        const response = await request(`${url}/hooks/biz-1`, { method: 'POST', body, headers, dispatcher: replayer });
        await response.body.dump();
        statuses.push(response.statusCode);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await replayer.close();
    }
    expect(statuses[0]).toBe(202);
    expect(statuses.slice(1)).toEqual(Array(99).fill(200));
    await waitFor('the webhook run to count', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) > webhookRuns ? true : undefined,
    );
    await webhookSyncsIdle(ws.prefix);
    const extraScheduled = (await scheduled()) - before;
    expect(upstreamRequests(sim, 'biz-1')).toBeLessThanOrEqual(6 + 3 * extraScheduled);
    expect((await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) - webhookRuns).toBe(1);
    expect(await metricValue(url, 'callsync_webhook_deliveries_total', { business: 'biz-1', outcome: 'duplicate' })).toBe(99);
  });

  it('refuses forged, replayed, unknown, oversized and flooding deliveries without a sync, while another business still gets its call', async () => {
    const webhookRuns = await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' });
    const before = await scheduled();
    sim.resetCounters();
    const body = '{"event":"call.created"}';
    const nowSec = Math.floor(Date.now() / 1000);
    const sign = (secret: string, at: number): Record<string, string> => ({
      'content-type': 'application/json',
      'x-webhook-timestamp': String(at),
      'x-webhook-signature': createHmac('sha256', secret).update(`${at}.${body}`).digest('hex'),
    });
    // The attacker posts from another loopback address, so the limit it meets is its own; it keeps under
    // hooks.maxConnectionsPerClient (64), past which connections are closed unanswered (hostile-receiver.test.ts).
    const attacker = new Agent({ connect: { localAddress: '127.0.0.2' }, connections: 32 });
    const post = async (path: string, payload: string | Buffer, headers: Record<string, string>): Promise<number> => {
      const response = await request(`${url}${path}`, { method: 'POST', body: payload, headers, dispatcher: attacker });
      await response.body.dump();
      return response.statusCode;
    };
    try {
      expect(await post('/hooks/biz-1', body, sign('not-the-secret', nowSec))).toBe(401);
      expect(await post('/hooks/biz-1', body, sign(SECRETS['biz-1']!, nowSec - 3_600))).toBe(401);
      expect(await post('/hooks/biz-9', body, sign(SECRETS['biz-1']!, nowSec))).toBe(404);
      expect(await post('/hooks/biz-1', Buffer.alloc(10 * 1024 * 1024, 0x20), { 'content-type': 'application/json' })).toBe(413);

      // 1,000 requests as fast as one client can (over the 300 a minute it may send), while biz-2's own webhook arrives from the simulator.
      const flood = Promise.all(Array.from({ length: 1_000 }, () => post('/hooks/biz-1', body, { 'content-type': 'application/json' })));
      sim.addCalls('biz-2', 1);
      const newest = sim.truth('biz-2').calls.at(-1)!.id;
      const statuses = await flood;
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
      await waitFor(`biz-2 call ${newest}`, () => (hasCall(ws.dbPath, 'biz-2', newest) ? true : undefined), 30_000, 50);
      await sim.webhooksSettled();
      expect(sim.webhookCounters().byStatus).toEqual({ 202: 1 });
    } finally {
      await attacker.close();
    }
    // Let biz-2's run end and count before reading the metrics.
    await waitFor('the webhook run to count', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) > webhookRuns ? true : undefined,
    );
    // A sync a refused delivery had queued by mistake would still be waiting or running: let it end and count.
    await webhookSyncsIdle(ws.prefix);
    // No request for biz-1 beyond a scheduled poll that may have fired; one webhook sync, biz-2's.
    expect(upstreamRequests(sim, 'biz-1')).toBeLessThanOrEqual(3 * ((await scheduled()) - before));
    expect((await metricValue(url, 'callsync_sync_runs_total', { trigger: 'webhook' })) - webhookRuns).toBe(1);
    expect(await metricValue(url, 'callsync_webhook_deliveries_total', { outcome: 'rate_limited' })).toBeGreaterThan(0);
    expect(await metricValue(url, 'callsync_webhook_deliveries_total', { business: 'biz-1', outcome: 'replayed' })).toBe(1);
    expect(processes[0]!.child.exitCode).toBeNull();
  });
});
