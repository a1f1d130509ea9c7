import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq';
import { businessStopped, failureReason } from '../state/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { StreamDescriptor } from '../sync/stream-descriptor.js';
import type { SyncJobDeps, SyncJobResult } from './job-deps.js';
import { RECONCILE_JOB, type SyncJobData } from './names.js';
import { runStreamJob } from './run-stream-job.js';
import { describeHolder, sinkIdentity, sinkLockKey, StreamLeases } from '../lease/stream-lease.js';
import { jobSignal, type JobSignal } from './job-signal.js';
import { WEBHOOK_BUSY_RETRY_FOR_MS, WEBHOOK_JOB } from './trigger-sync.js';

/**
 * The BullMQ processor of `run`. Before any request it checks that the stream is still
 * configured, that its business is not stopped, and takes the business × stream lock; a job that
 * finds the lock held returns at once (the holder syncs to the end, so nothing is lost). A run's
 * end maps to BullMQ here and only here: a pause → delayed (lock freed first); a stopped
 * business → unrecoverable; a stream failure → failed (the next scheduled run retries).
 */
export function createSyncProcessor(deps: SyncJobDeps): Processor<SyncJobData, SyncJobResult> {
  return async (job: Job<SyncJobData, SyncJobResult>, token?: string, cancel?: AbortSignal) => {
    const { business, stream } = job.data;
    const plan = deps.plans.get(business);
    const descriptor = plan?.streams.find((s) => s.name === stream);
    if (plan === undefined || descriptor === undefined) {
      deps.logger.warn({ business, stream, jobId: job.id }, 'job for a business or stream not in this config; skipped');
      return { outcome: 'not_configured' };
    }
    const failedReason = await deps.failed.reason(business);
    if (failedReason !== undefined) {
      await deps.statusStore.update(business, stream, businessStopped(failedReason));
      return { outcome: 'business_failed' };
    }
    const abort = jobSignal([deps.shutdown, cancel]);
    try {
      return await lockedRun(deps, job, token, plan, descriptor, abort);
    } finally {
      abort.dispose();
    }
  };
}

/** Takes the stream's lock, runs the job and maps its end to BullMQ; the lock is freed whatever happens. */
async function lockedRun(
  deps: SyncJobDeps,
  job: Job<SyncJobData, SyncJobResult>,
  token: string | undefined,
  plan: BusinessPlan,
  descriptor: StreamDescriptor,
  abort: JobSignal,
): Promise<SyncJobResult> {
  const { business, stream } = job.data;
  // One lock per stream, shared with `callsync backfill`: one writer per sink × business × stream,
  // whether the other is a replica's job or a backfill.
  const key = sinkLockKey(deps.config.redis.prefix, sinkIdentity(deps.config.sink), business, stream);
  const leases = new StreamLeases({
    redis: deps.redis,
    ttlMs: deps.config.worker.lockDurationMs,
    command: 'run',
    onLost: () => {
      deps.logger.error({ business, stream }, 'stream lock lost; stopping this run after the page in flight');
      abort.abort(new Error('stream lock lost'));
    },
  });
  const busy = await leases.take([key]);
  if (busy.has(key)) {
    const holder = busy.get(key);
    // A scheduler firing while its own long run goes on is routine; a backfill holding the stream is worth a line.
    if (holder?.command === 'run') deps.logger.debug({ business, stream, jobId: job.id, holder: describeHolder(holder) }, 'another job is syncing this stream; skipped');
    else deps.logger.info({ business, stream, holder: holder === undefined ? 'unknown' : describeHolder(holder) }, 'another process is syncing this stream into this sink; skipped');
    return await retryReconcileLater(job, token, deps);
  }
  const lock = leases;
  const started = Date.now();
  try {
    const end = await runStreamJob(deps, plan, descriptor, abort.signal, job.name === RECONCILE_JOB ? 'reconcile' : 'sync');
    switch (end.kind) {
      case 'synced':
        // One info line per run, so an operator reading `run`'s log sees every sync without debug.
        deps.logger.info({ business, stream, records: end.result.records, written: end.result.written, durationMs: Date.now() - started }, 'sync done');
        return { outcome: 'synced', pages: end.result.pages, records: end.result.records, written: end.result.written };
      case 'reconciled':
        return { outcome: 'reconciled', drift: end.drift };
      case 'paused':
        // Free the lock before the job becomes due again, so its next attempt (or another job) can take it.
        await lock.release();
        await job.moveToDelayed(Date.now() + end.delayMs, token);
        throw new DelayedError(end.reason);
      case 'business_stopped':
        throw new UnrecoverableError(end.failure.message);
      case 'stream_failed':
        throw new Error(failureReason(end.failure));
    }
  } finally {
    await lock.release();
  }
}

/** How soon a full reconciliation that found its stream busy asks again. */
const RECONCILE_RETRY_MS = 1_000;

/**
 * A sync skipped because the stream is busy loses nothing: the holder syncs to the end. A full
 * reconciliation is different: BullMQ fires interval schedulers on multiples of their interval,
 * so a daily reconciliation lands on the same instant as a sync every time and would be skipped
 * every day. It waits for the lock instead, until its own interval has passed.
 */
async function retryReconcileLater(job: Job<SyncJobData, SyncJobResult>, token: string | undefined, deps: SyncJobDeps): Promise<SyncJobResult> {
  // A webhook's sync waits too: the holder may have read the list before the new record was there.
  const waitsFor = job.name === RECONCILE_JOB ? deps.config.reconcile.every : job.name === WEBHOOK_JOB ? WEBHOOK_BUSY_RETRY_FOR_MS : 0;
  if (Date.now() - job.timestamp > waitsFor) return { outcome: 'busy' };
  await job.moveToDelayed(Date.now() + RECONCILE_RETRY_MS + Math.floor(Math.random() * RECONCILE_RETRY_MS), token);
  throw new DelayedError('full reconciliation waits for the stream lock');
}
