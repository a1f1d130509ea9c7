import { heldMessage, type HeldDeletions } from './deletion-guard.js';

/**
 * What reconciliation found for one business × stream. `difference` is upstream minus stored:
 * positive when records are missing from the sink, negative when the sink holds records upstream
 * no longer lists.
 */
export interface StreamCheck {
  readonly business: string;
  readonly stream: string;
  /** Records stored and not marked deleted, plus dead letters (records upstream has that could not be stored). */
  readonly stored: number;
  /** What upstream says it has (`total`); null for a stream whose API gives no total (v2). */
  readonly upstream: number | null;
  readonly difference: number | null;
  /** `not_verifiable`: upstream gives no total, so nothing can be said; never reported as ok. */
  readonly verdict: 'ok' | 'differs' | 'not_verifiable';
  /** After an id-level walk: ids upstream lists that the sink lacked, and stored ids upstream no longer lists. */
  readonly missing?: number;
  readonly extra?: number;
  /** After a repair: records written and records marked deleted. */
  readonly written?: number;
  readonly markedDeleted?: number;
  /** After a whole walk: deletions the guard held back because they were too many (`--confirm-deletions` marks them). */
  readonly heldDeletions?: HeldDeletions;
  /** After a whole walk: records it missed that wait for a second whole walk (`reconcile.deleteAfter`). */
  readonly pendingDeletions?: number;
}

/** Compares the counts; a stream without an upstream total is not verifiable. */
export function judge(business: string, stream: string, stored: number, upstream: number | null): StreamCheck {
  if (upstream === null) return { business, stream, stored, upstream, difference: null, verdict: 'not_verifiable' };
  const difference = upstream - stored;
  return { business, stream, stored, upstream, difference, verdict: difference === 0 ? 'ok' : 'differs' };
}

/** One line for logs and status: what differs and by how much. */
export function describeDrift(check: StreamCheck): string {
  if (check.verdict !== 'differs' || check.difference === null) return `${check.business}/${check.stream}: ${check.verdict}`;
  const side = check.difference > 0 ? `${check.difference} missing from the sink` : `${-check.difference} stored that upstream no longer lists`;
  const drift = `drift: upstream has ${check.upstream}, the sink ${check.stored} (${side})`;
  return check.heldDeletions === undefined ? drift : `${heldMessage(check.heldDeletions)}; ${drift}`;
}
