import type { BusinessPlan } from '../../sync/business-plan.js';
import type { StreamFailure } from '../../state/index.js';
import type { BusinessOutcome, StreamOutcome } from '../../sync/sync-business.js';
import type { PageProgress, StreamRunResult } from '../../sync/sync-stream.js';
import type { BackfillReporter } from './reporter.js';

type Counts = Omit<StreamRunResult, 'warnings' | 'stopped'>;

// An abort reaches a stream as a failed request ("The operation was aborted"), not as a stop.
const ABORT_KINDS: ReadonlySet<StreamFailure['kind']> = new Set(['internal']);

/**
 * What each stream stored, page by page, as the reporter hears it: a stream cut off by a signal
 * ends with a failure and no result, yet its pages and their checkpoints are stored.
 */
export class StoredTally {
  readonly #counts = new Map<string, Counts>();

  /** The same reporter, counting each stored page first. */
  wrap(reporter: BackfillReporter): BackfillReporter {
    return { ...reporter, page: (progress) => (this.add(progress), reporter.page(progress)) };
  }

  add(page: PageProgress): void {
    const key = `${page.businessId}\u0000${page.stream}`;
    const seen = this.#counts.get(key) ?? { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
    this.#counts.set(key, {
      pages: seen.pages + 1,
      records: seen.records + page.records,
      written: seen.written + page.written,
      unchanged: seen.unchanged + page.records - page.written - page.deadLettered,
      deadLettered: seen.deadLettered + page.deadLettered,
    });
  }

  stored(business: string, stream: string): Counts {
    return this.#counts.get(`${business}\u0000${stream}`) ?? { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
  }
}

/**
 * The outcomes of a backfill stopped by a signal: every stream the abort cut off (or never
 * reached) is `stopped` with what it stored, instead of failed; real failures stay failures.
 */
export function asStopped(outcomes: readonly BusinessOutcome[], plans: readonly BusinessPlan[], tally: StoredTally): BusinessOutcome[] {
  const byBusiness = new Map(outcomes.map((outcome) => [outcome.business, outcome]));
  return plans.map((plan) => {
    const outcome = byBusiness.get(plan.name);
    if (outcome?.failure !== undefined && !ABORT_KINDS.has(outcome.failure.kind)) return outcome;
    const streams = plan.streams.map((descriptor): StreamOutcome => {
      const done = outcome?.streams.find((s) => s.stream === descriptor.name);
      if (done?.result !== undefined) return done;
      if (done?.failure !== undefined && !ABORT_KINDS.has(done.failure.kind)) return done;
      return { stream: descriptor.name, result: { ...tally.stored(plan.name, descriptor.name), warnings: [], stopped: true } };
    });
    return { business: plan.name, streams };
  });
}

/** `stopped by signal after storing N records; run again to resume`, the sentence for one stopped stream. */
export function stoppedNote(records: number): string {
  return `stopped by signal after storing ${records} records; run again to resume`;
}

/** One line per stopped stream, for standard error. */
export function stoppedLines(outcomes: readonly BusinessOutcome[]): string[] {
  return outcomes.flatMap((outcome) =>
    outcome.streams.flatMap((s) => (s.result?.stopped === true ? [`${outcome.business}/${s.stream}: ${stoppedNote(s.result.records)}`] : [])),
  );
}
