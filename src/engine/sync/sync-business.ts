import type { Sink } from '../../sink/sink.js';
import type { BusinessPlan } from './business-plan.js';
import { describeStreamFailure } from '../state/index.js';
import type { BusinessOutcome, StreamOutcome, StreamRunResult, SyncEventHandler } from './sync-event.js';
import { syncStream, type FetchPayload, type StreamRunOptions } from './sync-stream.js';

interface BusinessRunOptions {
  readonly plan: BusinessPlan;
  readonly fetchPayload: FetchPayload;
  readonly sink: Sink;
  readonly paging: StreamRunOptions['paging'];
  readonly revisit?: StreamRunOptions['revisit'];
  readonly signal?: AbortSignal;
  /** Hears every stream's events, then `business-end` with the outcome. */
  readonly onEvent?: SyncEventHandler;
}

/** A stream the stop came before: stopped, with nothing stored. */
const NOT_REACHED: StreamRunResult = Object.freeze({ pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0, warnings: [], stopped: true });

/**
 * Syncs a business's streams one after another (they share one request budget, so running them
 * side by side would only interleave the same requests). A stream failure stops that stream; an
 * auth or role failure stops the business; neither escapes to other businesses. Once the signal
 * is aborted, every stream not yet run is `stopped` with nothing stored.
 */
export async function syncBusiness(options: BusinessRunOptions): Promise<BusinessOutcome> {
  const { plan } = options;
  const outcomes: StreamOutcome[] = [];
  const end = (outcome: BusinessOutcome): BusinessOutcome => {
    options.onEvent?.({ type: 'business-end', outcome });
    return outcome;
  };
  for (const descriptor of plan.streams) {
    if (options.signal?.aborted === true) {
      outcomes.push({ stream: descriptor.name, result: NOT_REACHED });
      continue;
    }
    try {
      const result = await syncStream({
        businessId: plan.name,
        descriptor,
        fetchPayload: options.fetchPayload,
        sink: options.sink,
        normalizeContext: plan.normalizeContext,
        paging: options.paging,
        revisit: options.revisit,
        signal: options.signal,
        onEvent: options.onEvent,
      });
      outcomes.push({ stream: descriptor.name, result });
    } catch (error) {
      const failure = describeStreamFailure(error);
      outcomes.push({ stream: descriptor.name, failure });
      if (failure.scope === 'business') return end({ business: plan.name, streams: outcomes, failure });
    }
  }
  return end({ business: plan.name, streams: outcomes });
}
