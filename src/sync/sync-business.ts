import type { Sink } from '../sink.js';
import type { BusinessPlan } from './business-plan.js';
import { describeStreamFailure, type StreamFailure } from '../state/index.js';
import { syncStream, type FetchPayload, type PageProgress, type StreamRunOptions, type StreamRunResult } from './sync-stream.js';

export interface StreamOutcome {
  readonly stream: string;
  readonly result?: StreamRunResult;
  readonly failure?: StreamFailure;
}

export interface BusinessOutcome {
  readonly business: string;
  readonly streams: readonly StreamOutcome[];
  /** Set when the business stopped as a whole (revoked key, missing role). */
  readonly failure?: StreamFailure;
}

export interface BusinessRunOptions {
  readonly plan: BusinessPlan;
  readonly fetchPayload: FetchPayload;
  readonly sink: Sink;
  readonly paging: StreamRunOptions['paging'];
  readonly revisit?: StreamRunOptions['revisit'];
  readonly signal?: AbortSignal;
  readonly onStreamStart?: (stream: string) => void;
  readonly onPage?: (progress: PageProgress) => void;
  readonly onWarning?: (stream: string, message: string) => void;
}

/**
 * Syncs a business's streams one after another (they share one request budget, so running them
 * side by side would only interleave the same requests). A stream failure stops that stream; an
 * auth or role failure stops the business; neither escapes to other businesses.
 */
export async function syncBusiness(options: BusinessRunOptions): Promise<BusinessOutcome> {
  const { plan } = options;
  const outcomes: StreamOutcome[] = [];
  for (const descriptor of plan.streams) {
    if (options.signal?.aborted) break;
    options.onStreamStart?.(descriptor.name);
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
        onPage: options.onPage,
        onWarning: (message) => options.onWarning?.(descriptor.name, message),
      });
      outcomes.push({ stream: descriptor.name, result });
    } catch (error) {
      const failure = describeStreamFailure(error);
      outcomes.push({ stream: descriptor.name, failure });
      if (failure.scope === 'business') return { business: plan.name, streams: outcomes, failure };
    }
  }
  return { business: plan.name, streams: outcomes };
}
