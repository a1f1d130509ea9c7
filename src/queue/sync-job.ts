import { DelayedError, type Job, type Processor } from 'bullmq';
import type { SyncJobDeps, SyncJobResult } from './job-deps.js';
import type { SyncJobData } from './names.js';
import { runStreamJob, StopForNow } from './run-stream-job.js';
import { acquireStreamLock } from './stream-lock.js';

/**
 * The BullMQ processor of `run`. Before any request it checks that the stream is still
 * configured, that its business is not stopped, and takes the business × stream lock; a job that
 * finds the lock held returns at once (the holder syncs to the end, so nothing is lost).
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
      await deps.statusStore.update(business, stream, { state: 'auth_failed', lastError: failedReason });
      return { outcome: 'business_failed' };
    }
    const abort = new AbortController();
    const signals = [deps.shutdown, abort.signal, ...(cancel === undefined ? [] : [cancel])];
    const lock = await acquireStreamLock({
      redis: deps.redis,
      key: deps.keys.streamLock(business, stream),
      ttlMs: deps.config.worker.lockDurationMs,
      onLost: () => {
        deps.logger.error({ business, stream }, 'stream lock lost; stopping this run after the page in flight');
        abort.abort(new Error('stream lock lost'));
      },
    });
    if (lock === undefined) {
      deps.logger.debug({ business, stream, jobId: job.id }, 'another job is syncing this stream; skipped');
      return { outcome: 'busy' };
    }
    try {
      return await runStreamJob(deps, plan, descriptor, AbortSignal.any(signals));
    } catch (error) {
      if (!(error instanceof StopForNow)) throw error;
      // Free the lock before the job becomes due again, so its next attempt (or another job) can take it.
      await lock.release();
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError(error.message);
    } finally {
      await lock.release();
    }
  };
}
