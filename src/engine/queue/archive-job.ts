import type { Job, Processor, Queue } from 'bullmq';
import type { Logger } from 'pino';

/** An archive job: one pass over one business's recordings (new links added as `pending`, every pending one downloaded). */
export interface ArchiveJobData {
  readonly business: string;
}

/** The BullMQ queue of the recordings archive in `run`, beside each shard's `sync` queue (same prefix, so one hash slot). */
export const ARCHIVE_QUEUE = 'recordings';
/** Name of every archive job. */
const ARCHIVE_JOB = 'archive';
/** Attempts of one archive job: a storage failure is retried after a backoff; the next stored page queues another anyway. */
const ATTEMPTS = 3;
const BACKOFF_MS = 5_000;

/**
 * Queues one archive pass for a business, coalesced: a BullMQ deduplication id per business with
 * `keepLastIfActive`, so a burst of syncs while a job waits adds nothing, and syncs while one runs
 * leave exactly one more pass after it (which reads the links they stored), never a second pass
 * beside it, whichever replica queued them.
 */
export async function queueArchive(queue: Queue<ArchiveJobData>, business: string): Promise<void> {
  await queue.add(
    ARCHIVE_JOB,
    { business },
    {
      attempts: ATTEMPTS,
      backoff: { type: 'exponential', delay: BACKOFF_MS },
      removeOnComplete: true,
      removeOnFail: { count: 500 },
      deduplication: { id: `archive:${business}`, keepLastIfActive: true },
    },
  );
}

interface ArchiveProcessorDeps {
  /** The configured businesses: a job for another (a config that dropped it) is skipped. */
  readonly businesses: ReadonlySet<string>;
  /** One awaited pass over the business's recordings; rejects when storage fails or the process stops. */
  readonly pass: (business: string) => Promise<void>;
  readonly logger: Logger;
}

/**
 * The processor of the archive queue. The downloads of every job share the archive's own
 * `recordings.concurrency` slots and its budget; a pass ends when no row of the business is
 * `pending`, so a job always ends. A failed pass fails the job (BullMQ retries it after a backoff).
 */
export function createArchiveProcessor(deps: ArchiveProcessorDeps): Processor<ArchiveJobData> {
  return async (job: Job<ArchiveJobData>) => {
    const { business } = job.data;
    if (!deps.businesses.has(business)) {
      deps.logger.warn({ business, jobId: job.id }, 'archive job for a business not in this config; skipped');
      return;
    }
    const started = Date.now();
    await deps.pass(business);
    deps.logger.debug({ business, durationMs: Date.now() - started }, 'archive pass done');
  };
}
