import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { queueKeys, SYNC_QUEUE, type SyncJobData } from '../../../src/queue/names.js';
import { reconcileSchedulers } from '../../../src/queue/schedulers.js';
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

  it('schedules a thousand businesses × three streams', async () => {
    const plans = Array.from({ length: 1_000 }, (_, i) => plan(`b${i}`, ['calls', 'voicemails', 'numbers']));
    await reconcileSchedulers(queue, plans, 60_000);
    expect(await queue.getJobSchedulersCount()).toBe(3_000);
  });
});
