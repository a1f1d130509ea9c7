/** What every sync job carries: one business and one of its streams. */
export interface SyncJobData {
  readonly business: string;
  readonly stream: string;
}

/** The one BullMQ queue `run` uses. */
export const SYNC_QUEUE = 'sync';
/** Name of every sync job (the job scheduler's template). */
export const SYNC_JOB = 'sync';
const SCHEDULER_PREFIX = 'sync:';

/** Business names cannot hold `:`, so the id splits back unambiguously. */
export function schedulerId(business: string, stream: string): string {
  return `${SCHEDULER_PREFIX}${business}:${stream}`;
}

export function isSyncSchedulerId(id: string): boolean {
  return id.startsWith(SCHEDULER_PREFIX);
}

/** Where `run` keeps its own keys (besides BullMQ's, the limiter's and the status store's). */
export interface QueueKeys {
  /** BullMQ's key prefix. */
  readonly bull: string;
  streamLock(business: string, stream: string): string;
}

export function queueKeys(prefix: string): QueueKeys {
  const enc = encodeURIComponent;
  return {
    bull: `${prefix}:bull`,
    streamLock: (business, stream) => `${prefix}:queue:lock:${enc(business)}:${enc(stream)}`,
  };
}
