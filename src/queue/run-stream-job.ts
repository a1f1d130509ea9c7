import { UnrecoverableError } from 'bullmq';
import type { BudgetView } from '../server/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { StreamDescriptor } from '../sync/stream-descriptor.js';
import { revisitSettings } from '../sync/plan-businesses.js';
import { describeStreamFailure } from '../sync/stream-failure.js';
import { syncStream } from '../sync/sync-stream.js';
import { upstreamFetch } from '../sync/upstream-fetch.js';
import { isBudgetWaitError } from '../upstream/index.js';
import type { SyncJobDeps, SyncJobResult } from './job-deps.js';
import { JobReporter } from './job-reporter.js';

/** The run stopped with its pages stored and should go on later: the job is delayed by `delayMs`. */
export class StopForNow extends Error {
  override readonly name = 'StopForNow';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

async function budgetOf(deps: SyncJobDeps, plan: BusinessPlan): Promise<BudgetView | null> {
  if (plan.bucket === undefined) return null;
  const view = await deps.limiter.inspect(plan.name, plan.bucket);
  return { limit: view.limit, usedThisWindow: view.usedThisWindow, resetAt: iso(view.resetAtMs) };
}

/**
 * Syncs one stream under the lock and maps the outcome for BullMQ: budget waits and shutdown →
 * `StopForNow` (pages already checkpointed); auth/role failures → the business is marked failed
 * and the job is unrecoverable; other failures fail this run only (the next scheduled run retries).
 */
export async function runStreamJob(
  deps: SyncJobDeps,
  plan: BusinessPlan,
  descriptor: StreamDescriptor,
  signal: AbortSignal,
): Promise<SyncJobResult> {
  const business = plan.name;
  const stream = descriptor.name;
  const logger = deps.logger.child({ business, stream });
  const reporter = new JobReporter({ business, stream, metrics: deps.metrics, statusStore: deps.statusStore, logger });
  const started = Date.now();
  const { upstream, worker } = deps.config;
  reporter.status({ state: 'syncing', lastRunAt: iso(started) });
  try {
    const result = await syncStream({
      businessId: business,
      descriptor,
      fetchPayload: upstreamFetch({
        plan,
        client: deps.client(plan),
        limiter: deps.limiter,
        retry: upstream.retry,
        maxBudgetWaitMs: worker.maxBudgetWaitMs,
        signal,
        onEvent: reporter.fetchEvent,
      }),
      sink: deps.sink,
      normalizeContext: plan.normalizeContext,
      paging: { pageSize: upstream.pageSize, v2Limit: upstream.v2Limit, v2MaxLimit: upstream.v2MaxLimit },
      revisit: revisitSettings(deps.config),
      signal,
      onPage: reporter.page,
      onWarning: reporter.warn,
    });
    if (result.stopped) throw new StopForNow('stopped after the page in flight was stored', 0);
    const warning = reporter.warning ?? null;
    reporter.status({ state: warning === null ? 'idle' : 'gap_warning', lastSuccessAt: iso(Date.now()), lastError: null, warning, budget: await budgetOf(deps, plan) });
    logger.debug({ pages: result.pages, written: result.written }, 'stream synced');
    return { outcome: 'synced', pages: result.pages, records: result.records, written: result.written };
  } catch (error) {
    if (error instanceof StopForNow || signal.aborted) {
      reporter.status({ state: 'idle' });
      throw error instanceof StopForNow ? error : new StopForNow('stopped after the page in flight was stored', 0);
    }
    if (isBudgetWaitError(error)) {
      reporter.status({ state: 'waiting_for_budget', budget: await budgetOf(deps, plan) });
      logger.info({ waitMs: error.waitMs }, 'waiting for budget; job delayed');
      throw new StopForNow(error.message, error.waitMs);
    }
    const failure = describeStreamFailure(error);
    if (failure.scope === 'business') {
      await deps.failed.mark(business, `${failure.kind}: ${failure.message}`, deps.configHashes.get(business) ?? '');
      reporter.status({ state: 'auth_failed', lastError: `${failure.kind}: ${failure.message}` });
      logger.error({ kind: failure.kind, reason: failure.message }, 'business stopped until its config changes or `callsync resume`');
      throw new UnrecoverableError(failure.message);
    }
    reporter.status({ state: 'failed', lastError: `${failure.kind}: ${failure.message}` });
    logger.error({ kind: failure.kind, reason: failure.message }, 'stream run failed; the next scheduled run retries');
    throw new Error(`${failure.kind}: ${failure.message}`, { cause: error });
  } finally {
    deps.metrics.observeJobDuration({ stream }, (Date.now() - started) / 1000);
    await reporter.flush();
  }
}
