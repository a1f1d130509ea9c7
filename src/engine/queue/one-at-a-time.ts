import { LeaseGroup } from '../lease/lease.js';
import type { RedisClient } from '../../base/redis/index.js';

/** Longest a replica waits for another's scheduler reconciliation before doing its own anyway. */
const MAX_WAIT_MS = 120_000;
const POLL_MS = 250;
const TTL_MS = 30_000;

/**
 * Runs `work` while holding a lease on `key`, after any other holder is done: replicas that start
 * together reconcile the job schedulers one after another, so the second finds them written (it
 * writes none, and polls no business at once a second time) instead of both writing every one.
 * A holder that died frees the key within the lease's expiry; past {@link MAX_WAIT_MS} the work
 * runs anyway (it is idempotent).
 */
export async function oneAtATime<T>(redis: RedisClient, key: string, work: () => Promise<T>): Promise<T> {
  const lease = new LeaseGroup({ redis, ttlMs: TTL_MS, onLost: () => undefined });
  const deadline = Date.now() + MAX_WAIT_MS;
  while ((await lease.take([key])).size > 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, POLL_MS));
  try {
    return await work();
  } finally {
    await lease.release();
  }
}
