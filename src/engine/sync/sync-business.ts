import type { Sink } from '../../sink/sink.js';
import type { Source } from '../../source/source.js';
import type { BusinessPlan } from './business-plan.js';
import { describeStreamFailure } from '../state/index.js';
import type { BusinessOutcome, StreamOutcome, StreamRunResult, SyncEventHandler } from './sync-event.js';
import { syncStream, type StreamRunOptions, type StreamTally } from './sync-stream.js';

interface BusinessRunOptions {
  readonly plan: Pick<BusinessPlan, 'name' | 'normalizeContext'>;
  /** One per stream of the business, in the order they run. */
  readonly sources: readonly Source[];
  readonly sink: Sink;
  readonly signal?: AbortSignal;
  /** Hears every stream's events, then `business-end` with the outcome. */
  readonly onEvent?: SyncEventHandler;
  readonly readAhead?: StreamRunOptions['readAhead'];
}

/** A stream the stop came before: stopped, with nothing stored. */
const NOT_REACHED: StreamRunResult = Object.freeze({ pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0, warnings: [], stopped: true });

/**
 * Syncs a business's streams one after another (they share one request budget, so running them
 * side by side would only interleave the same requests). A stream failure stops that stream; an
 * auth or role failure stops the business; neither escapes to other businesses. A failed stream
 * keeps the counts of the pages it stored before the failure (they are in the sink). Once the
 * signal is aborted, every stream not yet run is `stopped` with nothing stored.
 */
export async function syncBusiness(options: BusinessRunOptions): Promise<BusinessOutcome> {
  const { plan } = options;
  const outcomes: StreamOutcome[] = [];
  const end = (outcome: BusinessOutcome): BusinessOutcome => {
    options.onEvent?.({ type: 'business-end', outcome });
    return outcome;
  };
  for (const source of options.sources) {
    const stream = source.descriptor.name;
    if (options.signal?.aborted === true) {
      outcomes.push({ stream, result: NOT_REACHED });
      continue;
    }
    const tally: StreamTally = { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
    try {
      const result = await syncStream({
        businessId: plan.name,
        source,
        sink: options.sink,
        normalizeContext: plan.normalizeContext,
        signal: options.signal,
        onEvent: options.onEvent,
        readAhead: options.readAhead,
        tally,
      });
      outcomes.push({ stream, result });
    } catch (error) {
      const failure = describeStreamFailure(error);
      outcomes.push({ stream, failure, result: { ...tally, warnings: [], stopped: false } });
      if (failure.scope === 'business') return end({ business: plan.name, streams: outcomes, failure });
    }
  }
  return end({ business: plan.name, streams: outcomes });
}
