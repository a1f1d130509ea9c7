import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { SyncJobData } from './names.js';
import { reconcileSchedulers, wantedSchedulers } from './schedulers.js';

interface KeepSchedulersOptions {
  readonly queue: Queue<SyncJobData>;
  readonly plans: readonly BusinessPlan[];
  readonly everyMs: number;
  /** Interval of the full reconciliations, when `run` schedules them. */
  readonly reconcileEveryMs?: number;
  readonly logger: Logger;
  /** Also restored when schedulers were lost (e.g. the failed-business marks of the same Redis). */
  readonly onRestore: () => Promise<unknown>;
  /** Runs the restore after any other replica's (see `one-at-a-time.ts`). @defaultValue at once */
  readonly oneAtATime?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Checks at most this often, at least this rarely. */
const MIN_CHECK_MS = 1_000;
const MAX_CHECK_MS = 30_000;

/**
 * A Redis that restarts without persistence comes back empty: no job schedulers, so nothing would
 * ever run again while health checks stay green. Every interval the worker counts the schedulers
 * (one command) and, when some are missing, sets them all up again (idempotent).
 */
export function keepSchedulers(options: KeepSchedulersOptions): { stop(): void } {
  const expected = wantedSchedulers(options.plans, options.everyMs, options.reconcileEveryMs).size;
  let running = false;
  const check = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const present = await options.queue.getJobSchedulersCount();
      if (present >= expected) return;
      const restore = (): Promise<unknown> => reconcileSchedulers(options.queue, options.plans, options.everyMs, options.reconcileEveryMs);
      await (options.oneAtATime === undefined ? restore() : options.oneAtATime(restore));
      await options.onRestore();
      options.logger.warn({ present, expected }, 'job schedulers were missing (Redis restarted empty?); set up again');
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, 'could not check job schedulers; will try again');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), Math.min(MAX_CHECK_MS, Math.max(MIN_CHECK_MS, options.everyMs)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
