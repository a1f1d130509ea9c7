import pLimit from 'p-limit';
import type { Dispatcher } from 'undici';
import { createMemoryRateLimiter } from '../../../source/ratelimit/index.js';
import { revisitSettings } from '../../../engine/sync/plan-businesses.js';
import { syncBusiness } from '../../../engine/sync/sync-business.js';
import type { BusinessOutcome, StreamRunResult, SyncEvent, SyncEventHandler } from '../../../engine/sync/sync-event.js';
import { walkSettings } from '../../../source/walkers/index.js';
import { createUpstreamAgent, createUpstreamClient, upstreamFetch } from '../../../source/upstream/index.js';
import { planTables } from '../failure/preflight.js';
import type { OneShotRun } from '../common/select-plans.js';
import type { BackfillReporter } from './reporter.js';

interface BackfillOptions extends OneShotRun {
  readonly reporter: BackfillReporter;
  /** @defaultValue one keep-alive agent for the whole run (one pool per upstream host) */
  readonly dispatcher?: Dispatcher;
}

/**
 * The one-shot backfill: every planned business at once (up to `backfill.concurrency`), each under
 * its own in-memory budget, all through the one engine. Never throws for a business's failure:
 * each outcome says what happened to it (a stream the signal cut off or never reached is `stopped`).
 */
export async function runBackfill(options: BackfillOptions): Promise<BusinessOutcome[]> {
  const { config, sink, reporter } = options;
  const upstream = config.upstream;
  const dispatcher = options.dispatcher ?? createUpstreamAgent({ timeoutMs: upstream.timeoutMs, caFile: upstream.caFile });
  const limiter = createMemoryRateLimiter({ maxWaitMs: upstream.maxWaitMs });
  const limit = pLimit(config.backfill.concurrency);
  const paging = walkSettings(upstream);
  try {
    await sink.prepare(planTables(options.plans));
    return await Promise.all(
      options.plans.map((plan) =>
        limit(async () => {
          const client = createUpstreamClient({ ...upstream, credentials: plan.credentials, dispatcher });
          const stored = new StoredTally();
          const onEvent: SyncEventHandler = (event) => {
            stored.hear(event);
            reporter.event(plan.name, event);
          };
          const fetchPayload = upstreamFetch({
            plan,
            client,
            limiter,
            retry: upstream.retry,
            maxBudgetWaitMs: Number.POSITIVE_INFINITY,
            signal: options.signal,
            onEvent,
          });
          const outcome = await syncBusiness({ plan, fetchPayload, sink, paging, revisit: revisitSettings(config), signal: options.signal, onEvent });
          await client.close();
          return stored.countFailed(outcome);
        }),
      ),
    );
  } finally {
    reporter.stop();
    await limiter.close();
    if (options.dispatcher === undefined) await dispatcher.close();
  }
}

/**
 * What a business's streams stored, page by page: a stream that fails has no result of its own,
 * yet the pages stored before the failure are in the sink, and the summary counts them.
 */
class StoredTally {
  readonly #streams = new Map<string, { pages: number; records: number; written: number; deadLettered: number }>();

  hear(event: SyncEvent): void {
    if (event.type !== 'page-stored') return;
    const { stream, records, written, deadLettered } = event.page;
    const sum = this.#streams.get(stream) ?? { pages: 0, records: 0, written: 0, deadLettered: 0 };
    this.#streams.set(stream, {
      pages: sum.pages + 1,
      records: sum.records + records,
      written: sum.written + written,
      deadLettered: sum.deadLettered + deadLettered,
    });
  }

  /** `outcome` with each failed stream's stored pages as its result. */
  countFailed(outcome: BusinessOutcome): BusinessOutcome {
    const streams = outcome.streams.map((stream) => {
      if (stream.failure === undefined || stream.result !== undefined) return stream;
      const sum = this.#streams.get(stream.stream) ?? { pages: 0, records: 0, written: 0, deadLettered: 0 };
      const result: StreamRunResult = { ...sum, unchanged: Math.max(0, sum.records - sum.written - sum.deadLettered), warnings: [], stopped: false };
      return { ...stream, result };
    });
    return { ...outcome, streams };
  }
}
