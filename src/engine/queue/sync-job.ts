import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq';
import { describeHolder, sinkLockKey, StreamLeases, type LockHolder } from '../lease/stream-lease.js';
import { isVerifiable } from '../reconcile/check.js';
import { businessStopped, failureReason } from '../state/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import type { StreamOutcome, SyncJobDeps, SyncJobResult } from './job-deps.js';
import { budgetPocket } from './budget-pocket.js';
import { jobSignal, type JobSignal } from './job-signal.js';
import { RECONCILE_JOB, type SyncJobData } from './names.js';
import { runStreamJob } from './run-stream-job.js';
import { StatusBatch } from './status-batch.js';
import { WEBHOOK_BUSY_RETRY_FOR_MS, WEBHOOK_JOB } from './trigger-sync.js';

/** A job that has run this long frees each stream's lease as soon as that stream is done, not at its end. */
const HOLD_ALL_MS = 1_000;
/** How soon a full reconciliation or a webhook's sync that found a stream busy asks again. */
const BUSY_RETRY_MS = 1_000;

/** The business's streams this job polls, in config order. */
function jobStreams(plan: BusinessPlan, data: SyncJobData, reconcile: boolean): StreamDescriptor[] {
  const only = data.streams ?? (data.stream === undefined ? undefined : [data.stream]);
  return plan.streams.filter((s) => (only === undefined || only.includes(s.name)) && (!reconcile || isVerifiable(s)));
}

/**
 * The BullMQ processor of `run`: one job per business polls its streams in turn. Before any
 * request it checks that the business is configured and not stopped, and takes the leases of its
 * streams in one round trip; a stream whose lease is held elsewhere is skipped (its holder syncs
 * it to the end, so nothing is lost). A run's end maps to BullMQ here and only here: a pause (no
 * budget, a shutdown) → the job delayed with the streams it has left (leases freed first); a
 * stopped business → unrecoverable; a stream failure → the other streams go on, then the job
 * fails (the next scheduled run retries).
 */
export function createSyncProcessor(deps: SyncJobDeps): Processor<SyncJobData, SyncJobResult> {
  return async (job: Job<SyncJobData, SyncJobResult>, token?: string, cancel?: AbortSignal) => {
    const { business } = job.data;
    const plan = deps.plans.get(business);
    const streams = plan === undefined ? [] : jobStreams(plan, job.data, job.name === RECONCILE_JOB);
    if (plan === undefined || streams.length === 0) {
      deps.logger.warn({ business, streams: job.data.streams ?? job.data.stream, jobId: job.id }, 'job for a business or stream not in this config; skipped');
      return { outcome: 'not_configured' };
    }
    const failedReason = await deps.failed.reason(business);
    if (failedReason !== undefined) {
      await deps.statusStore.writeMany(streams.map((s) => ({ business, stream: s.name, patch: businessStopped(failedReason) })));
      return { outcome: 'business_failed' };
    }
    const abort = jobSignal([deps.shutdown, cancel]);
    try {
      // leasedRun sends the job's status before it returns or throws.
      return await leasedRun({ deps, job, token, plan, streams, abort, status: new StatusBatch(deps.statusStore, deps.logger) });
    } finally {
      abort.dispose();
    }
  };
}

interface BusinessRun {
  readonly deps: SyncJobDeps;
  readonly job: Job<SyncJobData, SyncJobResult>;
  readonly token: string | undefined;
  readonly plan: BusinessPlan;
  readonly streams: readonly StreamDescriptor[];
  readonly abort: JobSignal;
  readonly status: StatusBatch;
}

function logBusy(run: BusinessRun, stream: string, holder: LockHolder | undefined): void {
  const { deps, job, plan } = run;
  // A scheduler firing while its own long run goes on is routine; a backfill holding the stream is worth a line.
  if (holder?.command === 'run')
    deps.logger.debug({ business: plan.name, stream, jobId: job.id, holder: describeHolder(holder) }, 'another job is syncing this stream; skipped');
  else
    deps.logger.info(
      { business: plan.name, stream, holder: holder === undefined ? 'unknown' : describeHolder(holder) },
      'another process is syncing this stream into this sink; skipped',
    );
}

/** Takes the streams' leases, runs each stream in turn and maps the ends to BullMQ; every lease is freed whatever happens. */
async function leasedRun(run: BusinessRun): Promise<SyncJobResult> {
  const { deps, job, plan, abort } = run;
  const business = plan.name;
  const keyOf = new Map(run.streams.map((s) => [sinkLockKey(deps.keys.space, deps.sinkLockName, business, s.name), s.name]));
  const leases = new StreamLeases({
    redis: deps.redis,
    ttlMs: deps.config.worker.lockDurationMs,
    command: 'run',
    // One writer per sink × business × stream, whether the other is a replica's job or a backfill.
    onLost: (key) => {
      deps.logger.error({ business, stream: keyOf.get(key) }, 'stream lock lost; stopping this run after the page in flight');
      abort.abort(new Error('stream lock lost'));
    },
  });
  const busy = new Set<string>();
  for (const [key, holder] of await leases.take([...keyOf.keys()])) {
    const stream = keyOf.get(key) ?? key;
    busy.add(stream);
    logBusy(run, stream, holder);
  }
  const mine = run.streams.filter((s) => !busy.has(s.name));
  const leaseOf = new Map([...keyOf].map(([key, stream]) => [stream, key]));
  const shared = { status: run.status, limiter: budgetPocket(deps.limiter, business, mine.length) };
  const started = Date.now();
  const outcomes: StreamOutcome[] = [];
  const failures: string[] = [];
  try {
    for (const [i, descriptor] of mine.entries()) {
      const stream = descriptor.name;
      const streamStarted = Date.now();
      const end = await runStreamJob(deps, plan, descriptor, abort.signal, job.name === RECONCILE_JOB ? 'reconcile' : 'sync', shared);
      switch (end.kind) {
        case 'synced':
          // One info line per stream run, so an operator reading `run`'s log sees every sync without debug.
          deps.logger.info({ business, stream, records: end.result.records, written: end.result.written, durationMs: Date.now() - streamStarted }, 'sync done');
          outcomes.push({ stream, outcome: 'synced', pages: end.result.pages, records: end.result.records, written: end.result.written });
          await deps.afterStreamSynced?.(business, stream);
          break;
        case 'reconciled':
          outcomes.push({ stream, outcome: 'reconciled', drift: end.drift });
          break;
        case 'paused': {
          // The streams not done go on later: this one from its checkpoint, then the rest (and those found busy).
          const left = [...mine.slice(i).map((s) => s.name), ...busy];
          await run.status.flush();
          await leases.release();
          await job.updateData({ business, streams: left });
          await job.moveToDelayed(Date.now() + end.delayMs, run.token);
          throw new DelayedError(end.reason);
        }
        case 'business_stopped':
          throw new UnrecoverableError(end.failure.message);
        case 'stream_failed':
          failures.push(`${stream}: ${failureReason(end.failure)}`);
          outcomes.push({ stream, outcome: 'failed' });
          break;
      }
      const key = leaseOf.get(stream);
      if (key !== undefined && Date.now() - started > HOLD_ALL_MS) await leases.release([key]);
    }
    if (busy.size > 0) {
      await leases.release();
      await retryBusyLater(run, [...busy]);
    }
    if (failures.length > 0) throw new Error(failures.join('; '));
    for (const stream of busy) outcomes.push({ stream, outcome: 'busy' });
    return { outcome: 'done', streams: outcomes };
  } finally {
    // Side by side: the job's status and its leases are independent keys, and one wait costs less than two.
    await Promise.all([leases.release(), run.status.flush()]);
  }
}

/**
 * A sync skipped because the stream is busy loses nothing: the holder syncs to the end. A full
 * reconciliation is different: it would be skipped until its next interval, a day later; so is a
 * webhook's sync, whose holder may have read the list before the new record was there. Those wait
 * for the busy streams instead, until their own interval has passed.
 */
async function retryBusyLater(run: BusinessRun, busy: readonly string[]): Promise<void> {
  const { job, deps } = run;
  const waitsFor = job.name === RECONCILE_JOB ? deps.config.reconcile.every : job.name === WEBHOOK_JOB ? WEBHOOK_BUSY_RETRY_FOR_MS : 0;
  if (Date.now() - job.timestamp > waitsFor) return;
  await job.updateData({ business: run.plan.name, streams: busy });
  await job.moveToDelayed(Date.now() + BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS), run.token);
  throw new DelayedError(`${job.name} waits for the stream lock`);
}
