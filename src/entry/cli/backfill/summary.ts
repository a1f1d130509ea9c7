import type { StreamFailure } from '../../../engine/state/index.js';
import type { BusinessOutcome } from '../../../engine/sync/sync-event.js';
import { formatTable } from '../common/text-table.js';
import { stoppedNote } from './stopped.js';

/** The final table: one row per business and stream, with what failed and why. */
export function formatSummary(outcomes: readonly BusinessOutcome[]): string {
  const rows = outcomes.flatMap((outcome) =>
    outcome.streams.map((stream) => {
      const result = stream.result;
      const status = stream.failure ? `failed (${stream.failure.kind})` : result?.stopped ? 'stopped' : 'ok';
      const note =
        stream.failure?.message ??
        (result?.stopped === true
          ? stoppedNote(result.records)
          : result === undefined
            ? undefined
            : [...result.warnings, ...(result.notes ?? [])].join('; ')) ??
        '';
      return [outcome.business, stream.stream, status, result?.records ?? 0, result?.written ?? 0, result?.deadLettered ?? 0, result?.pages ?? 0, note];
    }),
  );
  return formatTable(['business', 'stream', 'status', 'records', 'written', 'dead letters', 'pages', 'note'], rows);
}

/** Businesses with any failed stream, each with its first reason; empty when all went well. */
export function failedBusinesses(outcomes: readonly BusinessOutcome[]): Array<{ business: string; reason: string; failure: StreamFailure }> {
  return outcomes.flatMap((outcome) => {
    const failure = outcome.failure ?? outcome.streams.find((stream) => stream.failure)?.failure;
    return failure === undefined ? [] : [{ business: outcome.business, reason: `${failure.kind}: ${failure.message}`, failure }];
  });
}
