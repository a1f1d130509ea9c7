import { asKeySpace, type KeySpace } from '../../base/redis/index.js';

/**
 * What every job carries: one business; its streams are polled in turn. `streams` narrows a job
 * to some of them (a job delayed for budget or by a shutdown goes on with the streams it had
 * left); `stream` names one stream (a webhook's sync, `trigger-sync.ts`, or a job an older
 * version scheduled per business × stream).
 */
export interface SyncJobData {
  readonly business: string;
  readonly streams?: readonly string[];
  readonly stream?: string;
}

/** The one BullMQ queue `run` uses. */
export const SYNC_QUEUE = 'sync';
/** Name of every sync job (the job scheduler's template). */
export const SYNC_JOB = 'sync';
/** Name of the scheduled full reconciliation of one business's countable streams (`reconcile.every`). */
export const RECONCILE_JOB = 'reconcile';
const SCHEDULER_PREFIX = 'sync:';
const RECONCILE_PREFIX = 'reconcile:';

/** `sync:{business}`. Business names cannot hold `:`, so an older version's `sync:{business}:{stream}` never matches one. */
export function schedulerId(business: string): string {
  return `${SCHEDULER_PREFIX}${business}`;
}

export function reconcileSchedulerId(business: string): string {
  return `${RECONCILE_PREFIX}${business}`;
}

/** A job scheduler callsync owns (sync or reconcile), so it may remove those the config dropped. */
export function isOwnSchedulerId(id: string): boolean {
  return id.startsWith(SCHEDULER_PREFIX) || id.startsWith(RECONCILE_PREFIX);
}

/** Where `run` keeps its own keys (besides BullMQ's, the limiter's and the status store's). */
export interface QueueKeys {
  /** Where every key lives: the prefix, the shards and their hash tags. */
  readonly space: KeySpace;
  /** BullMQ's key prefix of shard 0, the only shard unless `queue.shards` says otherwise. */
  readonly bull: string;
  /** BullMQ's key prefix of a shard's queue: `{prefix}:bull`, or `{prefix:N}:bull` in a tagged key space (BullMQ's Redis Cluster pattern: a hash tag in the prefix keeps a queue in one slot). */
  bullOf(shard: number): string;
  /** Set when a run repaired a drift on its own, so a drift that persists is not walked after every run. */
  repairClaim(business: string, stream: string): string;
  /** Set when a full reconciliation ran, so a restart (which BullMQ answers with an immediate run) does not walk again. */
  fullReconcileClaim(business: string, stream: string): string;
}

export function queueKeys(keys: KeySpace | string): QueueKeys {
  const space = asKeySpace(keys);
  const enc = encodeURIComponent;
  const bullOf = (shard: number): string => `${space.shardBase(shard)}:bull`;
  return {
    space,
    bull: bullOf(0),
    bullOf,
    repairClaim: (business, stream) => `${space.base(business)}:reconcile:repaired:${enc(business)}:${enc(stream)}`,
    fullReconcileClaim: (business, stream) => `${space.base(business)}:reconcile:full:${enc(business)}:${enc(stream)}`,
  };
}
