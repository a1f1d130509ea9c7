import type { BusinessOutcome } from '../../sync/sync-business.js';
import type { PageProgress } from '../../sync/sync-stream.js';

/** What a backfill tells the person watching it; a progress bar on a terminal, log lines elsewhere. */
export interface BackfillReporter {
  streamStarted(business: string, stream: string): void;
  page(progress: PageProgress): void;
  request(business: string, status: number | undefined): void;
  /** `reason` is `budget` for a wait for the rate-limit budget, else the retry's reason with its `attempt`. */
  waiting(business: string, waitMs: number, reason: string, attempt?: number): void;
  warning(business: string, stream: string, message: string): void;
  businessDone(outcome: BusinessOutcome): void;
  stop(): void;
}
