import pLimit from 'p-limit';
import type { Dispatcher } from 'undici';
import { createMemoryRateLimiter, type RateLimiter } from '../../../source/ratelimit/index.js';
import { planSource } from '../../../engine/sync/plan-businesses.js';
import { syncBusiness } from '../../../engine/sync/sync-business.js';
import type { BusinessOutcome, SyncEventHandler } from '../../../engine/sync/sync-event.js';
import type { StreamRunOptions } from '../../../engine/sync/sync-stream.js';
import { createUpstreamAgent, createUpstreamClient, runRules } from '../../../source/upstream/index.js';
import { planTables } from '../failure/preflight.js';
import type { OneShotRun } from '../common/select-plans.js';
import type { BackfillReporter } from './reporter.js';
import type { ArchiveRun } from '../recordings/archive-run.js';

interface BackfillOptions extends OneShotRun {
  readonly reporter: BackfillReporter;
  /** @defaultValue one keep-alive agent for the whole run (one pool per upstream host) */
  readonly dispatcher?: Dispatcher;
  /** Pages requested ahead of the one being stored (see `StreamRunOptions.readAhead`). @defaultValue 1 */
  readonly readAhead?: StreamRunOptions['readAhead'];
  /** The business budgets; the recordings archive shares them. @defaultValue one in memory for this run */
  readonly limiter?: RateLimiter;
  /** `--recordings`: archives each business's recordings after each stored page, and the rest before the end. @defaultValue none */
  readonly archive?: ArchiveRun;
}

/**
 * The one-shot backfill: every planned business at once (up to `backfill.concurrency`), each under
 * its own in-memory budget, all through the one engine: each business's client and budget are
 * bound into a source per stream here, and the engine reads those. Never throws for a business's
 * failure: each outcome says what happened to it (a stream the signal cut off or never reached is
 * `stopped`; one that failed counts the pages it stored before).
 */
export async function runBackfill(options: BackfillOptions): Promise<BusinessOutcome[]> {
  const { config, sink, reporter } = options;
  const upstream = config.upstream;
  const dispatcher = options.dispatcher ?? createUpstreamAgent({ timeoutMs: upstream.timeoutMs, caFile: upstream.caFile });
  const limiter = options.limiter ?? createMemoryRateLimiter({ maxWaitMs: upstream.maxWaitMs });
  const { archive } = options;
  const limit = pLimit(config.backfill.concurrency);
  try {
    await sink.prepare(planTables(options.plans));
    // What an earlier backfill archived and was stopped before writing again (it holds every stream's lease, as this one does now).
    await archive?.resend();
    const outcomes = await Promise.all(
      options.plans.map((plan) =>
        limit(async () => {
          const client = createUpstreamClient({ ...upstream, credentials: plan.credentials, dispatcher });
          // The reporter's own method, bound: each event goes straight from the engine to it.
          const report: SyncEventHandler = reporter.event.bind(reporter, plan.name);
          const onEvent: SyncEventHandler =
            archive === undefined
              ? report
              : (event) => {
                  report(event);
                  if (event.type === 'page-stored') archive.poke(plan.name);
                };
          const rules = runRules({ plan, limiter, retry: upstream.retry, maxBudgetWaitMs: Number.POSITIVE_INFINITY, signal: options.signal, onEvent });
          const sources = plan.streams.map((descriptor) => planSource(config, plan, client, rules, descriptor));
          const outcome = await syncBusiness({ plan, sources, sink, signal: options.signal, onEvent, readAhead: options.readAhead });
          await client.close();
          return outcome;
        }),
      ),
    );
    await archive?.finish();
    return outcomes;
  } finally {
    reporter.stop();
    if (options.limiter === undefined) await limiter.close();
    if (options.dispatcher === undefined) await dispatcher.close();
  }
}
