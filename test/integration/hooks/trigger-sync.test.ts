import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { SyncJobData } from '../../../src/engine/queue/names.js';
import { triggerSync, WEBHOOK_JOB } from '../../../src/engine/queue/trigger-sync.js';
import { redisUrl, uniqueName } from '../services.js';
import { deleteKeys, waitFor } from '../worker/harness.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

/**
 * The order of deliveries and runs is made by the test, not by the clock: a run lasts until the
 * test lets it end, the worker can start after a burst, and the test waits for the queue to hold
 * nothing before it counts (BullMQ queues the run kept for after an active one in the same script
 * that finishes it, so an empty queue means no run is still to come).
 */
describe('triggerSync (real Redis, real BullMQ)', () => {
  const cleanup = cleanupSteps();

  function setUp(options: { minIntervalMs?: number; autorun?: boolean } = {}) {
    const prefix = uniqueName('trigger');
    const redis = new Redis(redisUrl);
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue<SyncJobData>('sync', { connection, prefix: `${prefix}:bull` });
    const runs: Array<{ name: string; stream: string | undefined }> = [];
    let active = 0;
    let overlapped = false;
    let gate = Promise.resolve();
    let open = (): void => undefined;
    const worker = new Worker<SyncJobData>(
      'sync',
      async (job) => {
        active += 1;
        if (active > 1) overlapped = true;
        runs.push({ name: job.name, stream: job.data.streams?.join(',') });
        await gate;
        active -= 1;
      },
      { connection, prefix: `${prefix}:bull`, concurrency: 4, autorun: options.autorun ?? true },
    );
    cleanup.push(
      () => deleteKeys(prefix),
      () => connection.quit(),
      () => redis.quit(),
      () => queue.close(),
      () => worker.close(),
    );
    const deps = { queue, redis, prefix, debounceMs: 100, minIntervalMs: options.minIntervalMs ?? 200 };
    return {
      deps,
      queue,
      runs,
      overlapped: () => overlapped,
      start: () => void worker.run().catch(() => undefined),
      /** Runs that start from now on last until {@link release}. */
      hold: () => void (gate = new Promise<void>((resolve) => (open = resolve))),
      release: () => open(),
      settled: () =>
        waitFor(
          'no run waiting, delayed or active',
          async () => (Object.values(await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized')).every((n) => n === 0) ? true : undefined),
          10_000,
          20,
        ),
    };
  }

  it('turns a burst of deliveries into one run per stream, named as a webhook sync', async () => {
    // The worker starts after the burst: every delivery lands while its stream's run waits, however slow the machine.
    const { deps, runs, start, settled } = setUp({ autorun: false });
    await Promise.all(Array.from({ length: 30 }, () => triggerSync(deps, 'acme', ['calls', 'voicemails'])));
    start();
    await settled();
    expect(runs.map((r) => r.stream).sort()).toEqual(['calls', 'voicemails']);
    expect(runs.every((r) => r.name === WEBHOOK_JOB)).toBe(true);
  });

  it('holds a stream that had a webhook run within minInterval back for minInterval', async () => {
    const { deps, queue, runs, settled } = setUp({ minIntervalMs: 60_000 });
    await triggerSync(deps, 'acme', ['calls']);
    await settled();
    expect(runs).toHaveLength(1);
    await triggerSync(deps, 'acme', ['calls']);
    const delayed = await queue.getDelayed();
    expect(delayed.map((job) => [job.name, job.delay])).toEqual([[WEBHOOK_JOB, 60_000]]);
    expect(runs).toHaveLength(1);
  });

  it('leaves exactly one more run after a running one, never a second beside it, however many deliveries arrive during it', async () => {
    const { deps, runs, overlapped, hold, release, settled } = setUp();
    hold();
    await triggerSync(deps, 'acme', ['calls']);
    await waitFor('the first run', () => (runs.length === 1 ? true : undefined), 10_000, 20);
    for (let i = 0; i < 100; i++) await triggerSync(deps, 'acme', ['calls']);
    release();
    await settled();
    expect(runs).toHaveLength(2);
    expect(overlapped()).toBe(false);
    // One delivery during the last run still leaves a run after it: nothing that arrived is left unsynced.
    hold();
    await triggerSync(deps, 'acme', ['calls']);
    await waitFor('the third run', () => (runs.length === 3 ? true : undefined), 10_000, 20);
    await triggerSync(deps, 'acme', ['calls']);
    release();
    await settled();
    expect(runs).toHaveLength(4);
    expect(overlapped()).toBe(false);
  });
});
