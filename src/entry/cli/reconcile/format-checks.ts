import { heldMessage, type StreamCheck } from '../../../engine/reconcile/check.js';
import { formatTable } from '../common/text-table.js';

/** A stream reconcile could not check, and why (an upstream or sink failure). */
interface FailedCheck {
  readonly business: string;
  readonly stream: string;
  readonly error: string;
}

export type CheckRow = StreamCheck | FailedCheck;

const VERDICT: Readonly<Record<StreamCheck['verdict'], string>> = { ok: 'ok', differs: 'differs', not_verifiable: 'not verifiable' };

const dash = (value: number | null | undefined): string | number => value ?? '-';

/** The terminal table: per business × stream, stored, upstream, difference and the verdict; repair columns when a walk ran. */
export function formatChecks(rows: readonly CheckRow[]): string {
  const walked = rows.some((row) => 'missing' in row && row.missing !== undefined);
  const headers = ['business', 'stream', 'stored', 'upstream', 'difference', 'result', ...(walked ? ['missing', 'extra', 'written', 'marked deleted'] : [])];
  const cells = rows.map((row) => {
    if ('error' in row) return [row.business, row.stream, '-', '-', '-', `failed: ${row.error}`, ...(walked ? ['-', '-', '-', '-'] : [])];
    const difference = row.difference === null ? '-' : row.difference > 0 ? `+${row.difference}` : String(row.difference);
    const repair = walked ? [dash(row.missing), dash(row.extra), dash(row.written), dash(row.markedDeleted)] : [];
    return [row.business, row.stream, row.stored, dash(row.upstream), difference, VERDICT[row.verdict], ...repair];
  });
  return [formatTable(headers, cells), ...guardNotes(rows)].join('\n');
}

/** One line per stream whose deletions the guard held back or keeps waiting, under the table. */
function guardNotes(rows: readonly CheckRow[]): string[] {
  return rows.flatMap((row) => {
    if ('error' in row) return [];
    const where = `${row.business}/${row.stream}`;
    if (row.heldDeletions !== undefined)
      return [`${where}: ${heldMessage(row.heldDeletions)} (this stream only: add --business ${row.business} --stream ${row.stream})`];
    if (row.pendingDeletions !== undefined) {
      return [
        `${where}: ${row.pendingDeletions} records upstream no longer lists wait for a second whole walk after reconcile.deleteAfter before they are marked deleted (--confirm-deletions marks them now)`,
      ];
    }
    return [];
  });
}

/** Exit 1 when anything differs or could not be checked; a stream that is only not verifiable does not fail. */
export function reconcileExitCode(rows: readonly CheckRow[]): 0 | 1 {
  return rows.some((row) => 'error' in row || row.verdict === 'differs') ? 1 : 0;
}
