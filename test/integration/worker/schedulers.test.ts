import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { queueKeys, SYNC_QUEUE, type SyncJobData } from '../../../src/engine/queue/names.js';
import { oneAtATime } from '../../../src/engine/queue/one-at-a-time.js';
import { reconcileSchedulers, schedulerOffset } from '../../../src/engine/queue/schedulers.js';
import { builtinStreams } from '../../../src/source/streams/builtin-streams.js';
import type { BusinessPlan } from '../../../src/engine/sync/business-plan.js';
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
  it('keeps exactly one scheduler per configured business, adding and removing as the config changes', async () => {
    const first = await reconcileSchedulers(queue, [plan('acme', ['calls', 'numbers']), plan('globex', ['calls'])], 60_000);
    expect(first.upserted).toHaveLength(2);
    const second = await reconcileSchedulers(queue, [plan('acme', ['calls']), plan('initech', ['calls', 'voicemails'])], 30_000);
    expect(second.removed).toEqual(['sync:globex']);
    const schedulers = await queue.getJobSchedulers(0, -1);
    expect(schedulers.map((s) => [s.key, s.template?.data]).sort()).toEqual([
      ['sync:acme', { business: 'acme' }],
      ['sync:initech', { business: 'initech' }],
    ]);
    expect(schedulers.every((s) => Number(s.every) === 30_000)).toBe(true);
  });

  it('adds a full reconciliation per business with a countable (v1) stream, none for v2 only, and removes it with them', async () => {
    await reconcileSchedulers(queue, [plan('recon', ['calls', 'voicemails', 'numbers']), plan('v2only', ['voicemails'])], 60_000, 86_400_000);
    const ours = (await queue.getJobSchedulers(0, -1)).filter((s) => /:(recon|v2only)$/.test(s.key));
    expect(ours.map((s) => [s.key, s.name, Number(s.every)]).sort()).toEqual([
      ['reconcile:recon', 'reconcile', 86_400_000],
      ['sync:recon', 'sync', 60_000],
      ['sync:v2only', 'sync', 60_000],
    ]);
    const changes = await reconcileSchedulers(queue, [plan('recon', ['voicemails']), plan('v2only', ['voicemails'])], 60_000, 86_400_000);
    expect(changes.removed.filter((id) => /:(recon|v2only)$/.test(id))).toEqual(['reconcile:recon']);
  });

  it('removes the per-stream schedulers of an older version and polls their businesses at once', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('upgrade')).bull });
    try {
      await local.upsertJobScheduler('sync:old:calls', { every: 60_000 }, { name: 'sync', data: { business: 'old', stream: 'calls' } });
      await local.upsertJobScheduler('reconcile:old:calls', { every: 86_400_000 }, { name: 'reconcile', data: { business: 'old', stream: 'calls' } });
      const changes = await reconcileSchedulers(local, [plan('old', ['calls', 'numbers'])], 60_000, 86_400_000);
      expect([...changes.removed].sort()).toEqual(['reconcile:old:calls', 'sync:old:calls']);
      expect(changes.created).toEqual([{ business: 'old' }]);
      expect((await local.getJobSchedulers(0, -1)).map((s) => s.key).sort()).toEqual(['reconcile:old', 'sync:old']);
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });

  it('schedules a thousand businesses spread evenly over the interval; adding or removing a thousand more writes only theirs', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('thousands')).bull });
    try {
      const plans = (from: number, to: number): BusinessPlan[] =>
        Array.from({ length: to - from }, (_, i) => plan(`b${from + i}`, ['calls', 'voicemails', 'numbers']));
      const changes = await reconcileSchedulers(local, plans(0, 1_000), 60_000, 86_400_000);
      expect(changes.created).toHaveLength(1_000);
      expect(changes.upserted).toHaveLength(2_000);
      const syncs = (await local.getJobSchedulers(0, -1)).filter((s) => s.name === 'sync');
      expect(syncs).toHaveLength(1_000);
      // In phase, every scheduler fired in the same second (a burst of 1,000 jobs a minute); spread,
      // no second of the minute holds more than twice its share.
      const perSecond = new Array<number>(60).fill(0);
      for (const s of syncs) perSecond[Math.floor(((s.next ?? 0) % 60_000) / 1000)]! += 1;
      expect(Math.max(...perSecond)).toBeLessThanOrEqual(2 * (1_000 / 60) + 10);
      expect(Math.min(...perSecond)).toBeGreaterThan(0);

      const before = new Map((await local.getJobSchedulers(0, -1)).map((s) => [s.key, s.next]));
      const grown = await reconcileSchedulers(local, plans(0, 2_000), 60_000, 86_400_000);
      expect(grown.created).toHaveLength(1_000);
      expect(grown.upserted.every((id) => Number(/b(\d+)$/.exec(id)?.[1]) >= 1_000)).toBe(true);
      expect(grown.upserted).toHaveLength(2_000);
      const shrunk = await reconcileSchedulers(local, plans(0, 1_000), 60_000, 86_400_000);
      expect(shrunk.upserted).toEqual([]);
      expect(shrunk.removed).toHaveLength(2_000);
      expect(shrunk.created).toEqual([]);
      // The first thousand were never written again: each keeps its next run.
      const after = new Map((await local.getJobSchedulers(0, -1)).map((s) => [s.key, s.next]));
      expect(after).toEqual(before);
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });

  it('two replicas starting together take turns: every scheduler written once, and the second polls nothing at once', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('turns')).bull });
    try {
      const plans = Array.from({ length: 300 }, (_, i) => plan(`t${i}`, ['calls', 'voicemails', 'numbers']));
      const key = `${queueKeys(uniqueName('turns')).bull}:schedulers-lease`;
      const replica = (): Promise<{ upserted: readonly string[]; created: readonly unknown[] }> =>
        oneAtATime(connection, key, () => reconcileSchedulers(local, plans, 60_000, 86_400_000));
      const [a, b] = await Promise.all([replica(), replica()]);
      expect(a.upserted.length + b.upserted.length).toBe(600);
      expect(a.created.length + b.created.length).toBe(300);
      expect([a.upserted.length, b.upserted.length]).toContain(0);
      expect(await connection.exists(key)).toBe(0);
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });

  it('fires each scheduler first at its own phase, not at once, and a Redis that came back empty gets the same phases', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('phases')).bull });
    try {
      const before = Date.now();
      const changes = await reconcileSchedulers(local, [plan('phase', ['calls', 'voicemails'])], 60_000, 86_400_000);
      expect(changes.created).toEqual([{ business: 'phase' }]);
      const nexts = async (): Promise<Map<string, number>> => new Map((await local.getJobSchedulers(0, -1)).map((s) => [s.key, s.next ?? 0]));
      const first = await nexts();
      expect([...first.keys()].sort()).toEqual(['reconcile:phase', 'sync:phase']);
      for (const [id, next] of first) {
        const every = id.startsWith('reconcile:') ? 86_400_000 : 60_000;
        expect(next % every, id).toBe(schedulerOffset(id, every));
        expect(next, id).toBeGreaterThan(before);
      }
      // The daily full reconciliation comes at its own slot of the day, the same one after Redis lost everything.
      await local.obliterate({ force: true });
      await reconcileSchedulers(local, [plan('phase', ['calls', 'voicemails'])], 60_000, 86_400_000);
      expect((await nexts()).get('reconcile:phase')).toBe(first.get('reconcile:phase'));
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });

  it('makes again a scheduler out of its phase (one an older version made, firing at once)', async () => {
    const local = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: queueKeys(uniqueName('rephase')).bull });
    try {
      await local.upsertJobScheduler('sync:old', { every: 60_000 }, { name: 'sync', data: { business: 'old' } });
      const changes = await reconcileSchedulers(local, [plan('old', ['calls'])], 60_000);
      expect(changes.created).toEqual([]);
      expect(changes.upserted).toEqual(['sync:old']);
      const [scheduler] = await local.getJobSchedulers(0, -1);
      expect((scheduler?.next ?? 0) % 60_000).toBe(schedulerOffset('sync:old', 60_000));
      expect((await reconcileSchedulers(local, [plan('old', ['calls'])], 60_000)).upserted).toEqual([]);
    } finally {
      await local.obliterate({ force: true });
      await local.close();
    }
  });
});
