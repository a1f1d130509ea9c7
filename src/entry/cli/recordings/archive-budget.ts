import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import type { Budget } from '../../../http/index.js';
import { bucketBudget, type BucketConfig, type RateLimiter } from '../../../source/ratelimit/index.js';

interface ArchiveBudgetOptions {
  readonly limiter: RateLimiter;
  readonly plans: readonly BusinessPlan[];
  /** `recordings.budget`. */
  readonly budget: { readonly requestsPerMinute: number; readonly countAgainstApi: boolean };
  /** How a wait for a token is spent (an abortable sleep). */
  readonly wait: (ms: number) => Promise<void>;
  /** `upstream.maxWaitMs`: the longest reset an answer may set. */
  readonly maxWaitMs: number;
}

/**
 * What a download waits on before each request (redirects included): a token of its recordings
 * host's bucket (`requestsPerMinute`, for everything that shares `limiter`), then, unless `countAgainstApi` is
 * false, one of its business's own bucket, the one its pages take from, so archiving can never
 * push the API into a 429.
 */
export function archiveBudget(options: ArchiveBudgetOptions): (businessId: string, url: URL) => Promise<void> {
  const { limiter, wait, maxWaitMs } = options;
  const budgets = new Map<string, Budget<Promise<void>>>();
  const take = (key: string, bucket: BucketConfig): Promise<void> => {
    let found = budgets.get(key);
    if (found === undefined) budgets.set(key, (found = bucketBudget({ limiter, key, bucket, wait, maxWaitMs })));
    return found.acquire();
  };
  const byName = new Map(options.plans.map((plan) => [plan.name, plan]));
  const hostBucket = { limit: options.budget.requestsPerMinute, windowMs: 60_000 };
  return async (businessId, url) => {
    await take(`recordings:${url.host}`, hostBucket);
    const plan = byName.get(businessId);
    if (options.budget.countAgainstApi && plan?.bucket !== undefined) await take(plan.name, plan.bucket);
  };
}
