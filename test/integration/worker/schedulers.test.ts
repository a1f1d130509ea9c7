import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { queueKeys, SYNC_QUEUE, type SyncJobData } from '../../../src/queue/names.js';
import { reconcileSchedulers, schedulerOffset } from '../../../src/queue/schedulers.js';
import { builtinStreams } from '../../../src/sync/builtin-streams.js';
import type { BusinessPlan } from '../../../src/sync/business-plan.js';
import { redisUrl, uniqueName } from '../services.js';

const prefix = uniqueName('schedulers');
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const queue = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(prefix).bull });

function plan(name: string, streams: readonly string[]): BusinessPlan {
  return {
    name,
    streams: streams.map((stream) => {
      const descriptor = builtinStreams.get(stream);
      if (descriptor === undefined) throw new Error(stream);
      return descriptor;
    }),
    credentials: {},
    bucket: undefined,
    normalizeContext: { recordingsBaseUrl: 'https://r.example', v2TimeZone: 'UTC' },
  };
}

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

describe('reconcileSchedulers', () => {
  it('keeps exactly one scheduler per configured business × stream, adding and removing as the config changes', async () => {
    const first = await reconcileSchedulers(queue, [plan('acme', ['calls', 'numbers']), plan('globex', ['calls'])], 60_000);
    expect(first.upserted).toHaveLength(3);
    const second = await reconcileSchedulers(queue, [plan('acme', ['calls']), plan('initech', ['calls', 'voicemails'])], 30_000);
    expect([...second.removed].sort()).toEqual(['sync:acme:numbers', 'sync:globex:calls']);
    const schedulers = await queue.getJobSchedulers(0, -1);
    expect(schedulers.map((s) => s.key).sort()).toEqual(['sync:acme:calls', 'sync:initech:calls', 'sync:initech:voicemails']);
    expect(schedulers.every((s) => Number(s.every) === 30_000)).toBe(true);
  });

  it('adds a full reconciliation per countable (v1) stream, none for v2, and removes it with its stream', async () => {
    await reconcileSchedulers(queue, [plan('recon', ['calls', 'voicemails', 'numbers'])], 60_000, 86_400_000);
    const ours = (await queue.getJobSchedulers(0, -1)).filter((s) => s.key.includes(':recon:'));
    expect(ours.map((s) => [s.key, s.name, Number(s.every)]).sort()).toEqual([
      ['reconcile:recon:calls', 'reconcile', 86_400_000],
      ['reconcile:recon:numbers', 'reconcile', 86_400_000],
      ['sync:recon:calls', 'sync', 60_000],
      ['sync:recon:numbers', 'sync', 60_000],
      ['sync:recon:voicemails', 'sync', 60_000],
    ]);
    const changes = await reconcileSchedulers(queue, [plan('recon', ['voicemails'])], 60_000, 86_400_000);
    expect([...changes.removed].filter((id) => id.includes(':recon:')).sort()).toEqual([
      'reconcile:recon:calls',
      'reconcile:recon:numbers',
      'sync:recon:calls',
      'sync:recon:numbers',
    ]);
  });

  it('schedules a thousand businesses × three streams, spread evenly over the interval', async () => {
    const plans = Array.from({ length: 1_000 }, (_, i) => plan(`b${i}`, ['calls', 'voicemails', 'numbers']));
    const changes = await reconcileSchedulers(queue, plans, 60_000);
    expect(changes.created).toHaveLength(3_000);
    const ours = (await queue.getJobSchedulers(0, -1)).filter((s) => /^sync:b\d+:/.test(s.key));
    expect(ours).toHaveLength(3_000);
    // In phase, every scheduler fired in the same second (a burst of 3,000 jobs a minute); spread,
    // no second of the minute holds more than twice its share (50).
    const perSecond = new Array<number>(60).fill(0);
    for (const s of ours) perSecond[Math.floor(((s.next ?? 0) % 60_000) / 1000)]! += 1;
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(100);
    expect(Math.min(...perSecond)).toBeGreaterThan(0);
    expect((await reconcileSchedulers(queue, plans, 60_000)).created).toEqual([]);
  });

  it('fires each scheduler first at its own phase, not at once, and a Redis that came back empty gets the same phases', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('phases')).bull });
    try {
      const before = Date.now();
      const changes = await reconcileSchedulers(local, [plan('phase', ['calls', 'voicemails'])], 60_000, 86_400_000);
      expect(changes.created).toEqual([{ business: 'phase', stream: 'calls' }, { business: 'phase', stream: 'voicemails' }]);
      const nexts = async (): Promise<Map<string, number>> => new Map((await local.getJobSchedulers(0, -1)).map((s) => [s.key, s.next ?? 0]));
      const first = await nexts();
      for (const [id, next] of first) {
        const every = id.startsWith('reconcile:') ? 86_400_000 : 60_000;
        expect(next % every, id).toBe(schedulerOffset(id, every));
        expect(next, id).toBeGreaterThan(before);
      }
      // The daily full reconciliation comes at its own slot of the day, the same one after Redis lost everything.
      await local.obliterate({ force: true });
      await reconcileSchedulers(local, [plan('phase', ['calls', 'voicemails'])], 60_000, 86_400_000);
      expect((await nexts()).get('reconcile:phase:calls')).toBe(first.get('reconcile:phase:calls'));
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });

  it('makes again a scheduler out of its phase (one an older version made, firing at once)', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('rephase')).bull });
    try {
      await local.upsertJobScheduler('sync:old:calls', { every: 60_000 }, { name: 'sync', data: { business: 'old', stream: 'calls' } });
      const changes = await reconcileSchedulers(local, [plan('old', ['calls'])], 60_000);
      expect(changes.created).toEqual([]);
      const [scheduler] = await local.getJobSchedulers(0, -1);
      expect((scheduler?.next ?? 0) % 60_000).toBe(schedulerOffset('sync:old:calls', 60_000));
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });
});
