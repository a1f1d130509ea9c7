import type { RateLimiter } from '../../source/ratelimit/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import { planSource } from '../sync/plan-businesses.js';
import type { StreamRunResult } from '../sync/sync-event.js';
import { syncStream } from '../sync/sync-stream.js';
import { runRules } from '../../source/upstream/index.js';
import {
  failureReason,
  pausedNow,
  reconciled,
  runEnded,
  runEndOf,
  runFinished,
  runStarted,
  type BudgetView,
  type RunEnd,
  type StatusStore,
} from '../state/index.js';
import { reconcileInRun } from './reconcile-in-run.js';
import type { SyncJobDeps } from './job-deps.js';
import { JobReporter } from './job-reporter.js';

/** A stream job's end: it reached the end of its stream, a full reconciliation ran, or one of the domain's run ends. */
type StreamJobEnd = { readonly kind: 'synced'; readonly result: StreamRunResult } | { readonly kind: 'reconciled'; readonly drift: string | null } | RunEnd;

/** What the streams of one business job share: where status goes, and the budget. */
interface JobShared {
  readonly status: Pick<StatusStore, 'write'>;
  readonly limiter: RateLimiter;
}

/** The business's budget for its status; `cached` takes the limiter's last view of this process when it has one (no round trip). */
async function budgetOf(deps: SyncJobDeps, plan: BusinessPlan, cached = false): Promise<BudgetView | null> {
  if (plan.bucket === undefined) return null;
  const view = (cached ? deps.limiter.peek?.(plan.name, plan.bucket) : undefined) ?? (await deps.limiter.inspect(plan.name, plan.bucket));
  return { limit: view.limit, usedThisWindow: view.usedThisWindow, resetAt: new Date(view.resetAtMs).toISOString() };
}

/**
 * Syncs one stream under the lock (or, for `reconcile`, reconciles it in full) and records what
 * happened: status, metrics, log line, and the business's stop mark when its credentials were
 * rejected. A sync that reached the end is compared with upstream's count at once. Never throws
 * for the run's own failure; the caller maps the returned end to the queue.
 */
export async function runStreamJob(
  deps: SyncJobDeps,
  plan: BusinessPlan,
  descriptor: StreamDescriptor,
  signal: AbortSignal,
  job: 'sync' | 'reconcile' = 'sync',
  shared: JobShared = { status: deps.statusStore, limiter: deps.limiter },
): Promise<StreamJobEnd> {
  const business = plan.name;
  const stream = descriptor.name;
  const logger = deps.logger.child({ business, stream });
  const statusStore = { write: shared.status.write, recordActivity: deps.statusStore.recordActivity.bind(deps.statusStore) };
  const reporter = new JobReporter({ business, stream, metrics: deps.metrics, statusStore, logger });
  const started = Date.now();
  const { upstream, worker } = deps.config;
  const rules = runRules({ plan, limiter: shared.limiter, retry: upstream.retry, maxBudgetWaitMs: worker.maxBudgetWaitMs, signal, onEvent: reporter.event });
  const source = planSource(deps.config, plan, deps.client(plan), rules, descriptor);
  const reconcile = { deps, plan, source, logger, signal };
  try {
    if (job === 'reconcile') {
      const reading = await reconcileInRun({ ...reconcile, when: { kind: 'scheduled' } });
      if (reading !== undefined) reporter.status(reconciled(reading, (await deps.statusStore.get(business, stream))?.state));
      return { kind: 'reconciled', drift: reading?.drift ?? null };
    }
    reporter.started(started, runStarted(started));
    const result = await syncStream({
      businessId: business,
      source,
      sink: deps.sink,
      normalizeContext: plan.normalizeContext,
      signal,
      onEvent: reporter.event,
    });
    if (result.stopped) {
      reporter.status(runEnded(pausedNow, null));
      return pausedNow;
    }
    const reading = await reconcileInRun({ ...reconcile, when: { kind: 'after_run', total: reporter.lastTotal } });
    reporter.status(runFinished(Date.now(), reporter.warning ?? null, await budgetOf(deps, plan, true), reading, result.notes ?? []));
    logger.debug({ pages: result.pages, written: result.written }, 'stream synced');
    return { kind: 'synced', result };
  } catch (error) {
    const end = runEndOf(error, signal.aborted);
    if (end.kind === 'business_stopped') await deps.failed.mark(business, failureReason(end.failure), deps.configHashes.get(business) ?? '');
    reporter.status(runEnded(end, end.kind === 'paused' && end.forBudget ? await budgetOf(deps, plan) : null));
    if (end.kind === 'paused') {
      if (end.forBudget) logger.info({ waitMs: end.delayMs }, 'waiting for budget; job delayed');
    } else {
      const { kind, message } = end.failure;
      if (end.kind === 'business_stopped') logger.error({ kind, reason: message }, 'business stopped until its config changes or `callsync resume`');
      else logger.error({ kind, reason: message }, 'stream run failed; the next scheduled run retries');
    }
    return end;
  } finally {
    deps.metrics.observeJobDuration({ stream }, (Date.now() - started) / 1000);
    await reporter.flush();
  }
}
