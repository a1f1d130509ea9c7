import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Simulator } from '../../../simulator/index.js';
import { queueKeys, SYNC_QUEUE } from '../../../src/engine/queue/names.js';
import { WEBHOOK_JOB } from '../../../src/engine/queue/trigger-sync.js';
import { redisUrl } from '../services.js';
import { runConfig, waitFor, type RunConfigOptions } from '../worker/harness.js';

/** The webhook events the simulator sends, each mapped to the one stream it concerns. */
export const STREAM_MAP = {
  'call.created': 'calls',
  'call.updated': 'calls',
  'call.deleted': 'calls',
  'voicemail.created': 'voicemails',
  'voicemail.deleted': 'voicemails',
} as const;

export const SECRETS: Readonly<Record<string, string>> = { 'biz-1': 'hook-secret-biz-1', 'biz-2': 'hook-secret-biz-2' };

/** A `run` config whose operators' server also receives webhooks (`/hooks/{business}`), each business with its own secret. */
export function hooksRunConfig(
  sim: Simulator,
  options: RunConfigOptions & { readonly clientLimit?: { readonly requests: number; readonly perMs: number } },
): Record<string, unknown> {
  const base = runConfig(sim, options);
  const businesses = (base.businesses as Array<Record<string, unknown>>).map((b) => ({ ...b, webhookSecret: SECRETS[b.name as string] }));
  return {
    ...base,
    businesses,
    hooks: { streamField: 'event', streamMap: STREAM_MAP, rateLimit: options.clientLimit ?? { requests: 300, perMs: 1000 } },
  };
}

/** One counter or histogram-count of `/metrics`, summed over the series whose labels include `labels`. */
export async function metricValue(url: string, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{([^}]*)\})? ([0-9.e+-]+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const seen = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => seen.includes(`${key}="${value}"`))) sum += Number(match[3]);
  }
  return sum;
}

/** v1 and v2 requests the simulator has answered for a business since its counters were reset. */
export function upstreamRequests(sim: Simulator, business: string): number {
  const counters = sim.counters().businesses[business];
  return (counters?.apiKeyRequests ?? 0) + (counters?.sessionRequests ?? 0) + (counters?.v2Requests ?? 0);
}

/**
 * Resolves once `run` (Redis prefix `prefix`) has no webhook sync waiting, delayed or running, on
 * four looks in a row 100 ms apart: the receiver queues a sync just after its 202, so one empty
 * look could come before a delivery's sync is queued. A sync kept for after a running one is queued
 * in the same script that ends that one, so it is never missed between two looks.
 */
export async function webhookSyncsIdle(prefix: string): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(SYNC_QUEUE, { connection, prefix: queueKeys(prefix).bull });
  let quiet = 0;
  try {
    await waitFor(
      'no webhook sync waiting, delayed or running',
      async () => {
        const jobs = await queue.getJobs(['active', 'waiting', 'delayed', 'prioritized']);
        quiet = jobs.some((job) => (job as { name?: string } | undefined)?.name === WEBHOOK_JOB) ? 0 : quiet + 1;
        return quiet >= 4 ? true : undefined;
      },
      60_000,
      100,
    );
  } finally {
    await queue.close();
    await connection.quit();
  }
}
