import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { upstreamClients } from '../../../engine/queue/upstream-clients.js';
import { createMemoryRateLimiter } from '../../../source/ratelimit/index.js';
import { deletionGuard, reconcileStream } from '../../../engine/reconcile/repair.js';
import { planSource } from '../../../engine/sync/plan-businesses.js';
import { createUpstreamAgent, runRules } from '../../../source/upstream/index.js';
import type { OneShotRun } from '../common/select-plans.js';
import type { CheckRow } from './format-checks.js';

interface RunReconcileOptions extends OneShotRun {
  readonly repair: boolean;
  /** `--confirm-deletions`: mark everything a whole walk missed, past the deletion guard. */
  readonly confirmDeletions?: boolean;
  readonly logger: Logger;
}

/**
 * `callsync reconcile` without a worker: each business under its own in-memory budget (as
 * `backfill`), up to `backfill.concurrency` businesses at once, its streams one after another.
 * A failure is that stream's row; it never stops the others.
 */
export async function runReconcile(options: RunReconcileOptions): Promise<CheckRow[]> {
  const { config, sink } = options;
  const { upstream } = config;
  const dispatcher = createUpstreamAgent({ timeoutMs: upstream.timeoutMs, caFile: upstream.caFile });
  const clients = upstreamClients(upstream, dispatcher);
  const limiter = createMemoryRateLimiter();
  const limit = pLimit(config.backfill.concurrency);
  try {
    const perBusiness = await Promise.all(
      options.plans.map((plan) =>
        limit(async () => {
          const rules = runRules({ plan, limiter, retry: upstream.retry, maxBudgetWaitMs: Number.POSITIVE_INFINITY, signal: options.signal });
          const client = clients.get(plan);
          const rows: CheckRow[] = [];
          for (const descriptor of plan.streams) {
            const labels = { business: plan.name, stream: descriptor.name };
            try {
              rows.push(
                await reconcileStream({
                  business: plan.name,
                  source: planSource(config, plan, client, rules, descriptor),
                  sink,
                  normalizeContext: plan.normalizeContext,
                  mode: options.repair ? 'repair' : 'count',
                  guard: deletionGuard(config.reconcile, options.confirmDeletions === true),
                  signal: options.signal,
                  onWarning: (warning) => options.logger.warn({ ...labels, warning }, 'reconcile warning'),
                }),
              );
            } catch (error) {
              rows.push({ ...labels, error: error instanceof Error ? error.message : String(error) });
            }
          }
          return rows;
        }),
      ),
    );
    return perBusiness.flat();
  } finally {
    await clients.close();
    await limiter.close();
    await dispatcher.close();
  }
}
