import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { SyncJobData } from '../../../src/engine/queue/names.js';
import { triggerSync, WEBHOOK_JOB } from '../../../src/engine/queue/trigger-sync.js';
import { redisUrl, uniqueName } from '../services.js';
import { deleteKeys, waitFor } from '../worker/harness.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('triggerSync (real Redis, real BullMQ)', () => {
  const cleanup = cleanupSteps();

  function setUp(runMs: number, minIntervalMs = 1_000) {
    const prefix = uniqueName('trigger');
    const redis = new Redis(redisUrl);
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue<SyncJobData>('sync', { connection, prefix: `${prefix}:bull` });
    const runs: Array<{ name: string; stream: string | undefined; startedAt: number }> = [];
    let active = 0;
    let overlapped = false;
    const worker = new Worker<SyncJobData>(
      'sync',
      async (job) => {
        active += 1;
        if (active > 1) overlapped = true;
        runs.push({ name: job.name, stream: job.data.streams?.join(','), startedAt: Date.now() });
        await sleep(runMs);
        active -= 1;
      },
      { connection, prefix: `${prefix}:bull`, concurrency: 4 },
    );
    cleanup.push(
      () => deleteKeys(prefix),
      () => connection.quit(),
      () => redis.quit(),
      () => queue.close(),
      () => worker.close(),
    );
    const deps = { queue, redis, prefix, debounceMs: 100, minIntervalMs };
    return { deps, runs, overlapped: () => overlapped };
  }

  it('turns a burst of deliveries into one run per stream, named as a webhook sync', async () => {
    const { deps, runs } = setUp(50);
    await Promise.all(Array.from({ length: 30 }, () => triggerSync(deps, 'acme', ['calls', 'voicemails'])));
    await waitFor('the runs', () => (runs.length >= 2 ? true : undefined), 10_000, 20);
    await sleep(1_500);
    expect(runs.map((r) => r.stream).sort()).toEqual(['calls', 'voicemails']);
    expect(runs.every((r) => r.name === WEBHOOK_JOB)).toBe(true);
  });

  it('leaves exactly one more run after a running one, never a second beside it, and 100 deliveries in a second make one or two', async () => {
    // minInterval 3 s: on a loaded machine the 100 deliveries may take over a second to send.
    const { deps, runs, overlapped } = setUp(400, 3_000);
    const sentFrom = Date.now();
    for (let i = 0; i < 100; i++) {
      await triggerSync(deps, 'acme', ['calls']);
      await sleep(10);
    }
    const sendingMs = Date.now() - sentFrom;
    await sleep(4_000);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    // The first run, then at most one more per minInterval the burst lasted: two when sending took
    // under 3 s, as it does on a quiet machine; a loaded machine that sends slower allows one more a window.
    expect(runs.length).toBeLessThanOrEqual(1 + Math.max(1, Math.ceil(sendingMs / 3_000)));
    expect(overlapped()).toBe(false);
    // A delivery during the last run still leaves a run after it: nothing that arrived is left unsynced.
    // The mark of the burst is gone (3 s) and no run is active.
    await sleep(3_000);
    const before = runs.length;
    await triggerSync(deps, 'acme', ['calls']);
    await waitFor('one more run', () => (runs.length > before ? true : undefined), 10_000, 20);
    await sleep(150);
    await triggerSync(deps, 'acme', ['calls']);
    await waitFor('the run after the active one', () => (runs.length > before + 1 ? true : undefined), 10_000, 20);
    expect(overlapped()).toBe(false);
  });
});
