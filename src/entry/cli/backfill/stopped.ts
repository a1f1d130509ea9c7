import type { BusinessOutcome } from '../../../engine/sync/sync-event.js';

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
