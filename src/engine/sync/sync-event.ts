import type { SinkNote } from '../../sink/sink.js';
import type { StreamFailure } from '../state/index.js';
import type { FetchEvent } from '../../source/upstream/index.js';
import type { RewriteReason } from './page-report.js';

/** One stored page, as the reporters count it. */
export interface PageProgress {
  readonly businessId: string;
  readonly stream: string;
  readonly records: number;
  readonly written: number;
  readonly deadLettered: number;
  /** What the sink noted about this page (e.g. calls whose customer the direction decided). */
  readonly notes?: readonly SinkNote[];
  /** Records upstream reports in all, when it does. */
  readonly total?: number;
}

/** What one stream run did, whether it reached the end of its stream or was stopped. */
export interface StreamRunResult {
  readonly pages: number;
  readonly records: number;
  readonly written: number;
  readonly unchanged: number;
  readonly deadLettered: number;
  readonly warnings: readonly string[];
  /**
   * What the sink noted over the run, one line per kind (`<count> <message>`, e.g. calls whose
   * customer a CRM chose by the direction): shown beside the warnings, but no sign of a gap.
   * @defaultValue none
   */
  readonly notes?: readonly string[];
  /**
   * True when the run ended because its signal was aborted (between pages or mid-request), not
   * because the stream was exhausted; the counts are what it stored before the stop.
   */
  readonly stopped: boolean;
}

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

/**
 * Everything a sync tells whoever watches it (progress bars, log lines, a job's metrics and
 * status), as one union: the engine's own events and the upstream exchange's {@link FetchEvent}s.
 * One handler of `SyncEvent` serves both the engine's `onEvent` and the fetch's, so a caller
 * wires one function instead of a callback per kind.
 */
export type SyncEvent =
  /** A stream run begins (before its checkpoint is read). */
  | { readonly type: 'stream-start'; readonly businessId: string; readonly stream: string }
  /** A page and its checkpoint are stored. */
  | { readonly type: 'page-stored'; readonly page: PageProgress }
  /** Something an operator should know that did not stop the stream (a possible gap, a server's page cap). */
  | { readonly type: 'warning'; readonly businessId: string; readonly stream: string; readonly message: string }
  /** `count` records were rewritten on their way to the sink (said in a warning too); see `RewriteReason`. */
  | { readonly type: 'rewrite'; readonly businessId: string; readonly stream: string; readonly reason: RewriteReason; readonly count: number }
  /** A business's streams are all done, failed or stopped: its outcome, as `syncBusiness` returns it. */
  | { readonly type: 'business-end'; readonly outcome: BusinessOutcome }
  | FetchEvent;

/** Receives every {@link SyncEvent}; called synchronously, so it must not throw or block. */
export type SyncEventHandler = (event: SyncEvent) => void;
