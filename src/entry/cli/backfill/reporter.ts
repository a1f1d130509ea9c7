import type { SyncEvent } from '../../../engine/sync/sync-event.js';
import { waitCappedMessage } from '../../../source/upstream/index.js';
import type { ArchiveProgress } from '../../../../connectors/recordings/index.js';
import type { RecordingTotals } from '../recordings/archive-run.js';

/** What a backfill tells the person watching it; a progress bar on a terminal, log lines elsewhere. */
export interface BackfillReporter {
  /** One event of one business's sync: the engine's, its upstream fetches', and its end. */
  event(business: string, event: SyncEvent): void;
  /** `--recordings`: one recording done, with the run's totals so far (progress in bytes). @defaultValue not told */
  recording?(progress: ArchiveProgress, totals: Readonly<RecordingTotals>): void;
  stop(): void;
}

/**
 * The warning an event carries for the person watching, if any: the engine's own, and a server's
 * wait cut to `upstream.maxWaitMs` (named by its path, as a stream).
 */
export function warningOf(event: SyncEvent): { readonly stream: string; readonly message: string } | undefined {
  if (event.type === 'warning') return event;
  if (event.type === 'wait-capped') return { stream: event.path.replace(/^\/+/, ''), message: waitCappedMessage(event) };
  return undefined;
}
