/**
 * The deletion guard: what a whole repair walk may mark deleted. One answer from upstream proves
 * little (an outage that answers 200 with a short list looks exactly like deletions), so a walk
 * that would mark a large part of a stream marks nothing until a person confirms, and a smaller
 * set is marked only when a second whole walk, `afterMs` later, misses the same records.
 */

/** The limits of one repair, from `reconcile.*` and the command line. */
export interface DeletionGuard {
  /** Largest share (0–1) of the stream's stored records one walk may mark without confirmation. @defaultValue 0.1 */
  readonly maxShare: number;
  /** Largest number of records one walk may mark without confirmation; none when undefined. */
  readonly maxCount?: number;
  /** How far apart the two whole walks that both missed a record must be. @defaultValue 1 h */
  readonly afterMs: number;
  /** The operator confirmed (`--confirm-deletions`): everything the whole walk missed is marked now. */
  readonly confirmed: boolean;
}

/** Deletions a whole walk found too many to mark: how many and what share of the stream. */
export interface HeldDeletions {
  readonly count: number;
  /** `count` over the records stored and not deleted when the walk began (0–1). */
  readonly share: number;
}

/**
 * What the store keeps between walks: records a whole walk missed, each with the time it was
 * first missed (ms), and the last walk's held deletions.
 */
export interface DeletionState {
  readonly candidates: ReadonlyMap<string, number>;
  readonly held: HeldDeletions | null;
}

export const NO_DELETIONS: DeletionState = Object.freeze({ candidates: new Map<string, number>(), held: null });

/** What a whole walk does about the stored records it did not see. */
export type DeletionDecision =
  | { readonly kind: 'held'; readonly held: HeldDeletions }
  | {
      readonly kind: 'mark';
      /** Marked now: confirmed, or missed by a walk at least `afterMs` before this one too. */
      readonly due: readonly string[];
      /** Missed for the first time (or too recently): kept for the next whole walk. */
      readonly candidates: ReadonlyMap<string, number>;
    };

/**
 * Decides for one whole walk. `extra` are the stored ids it did not see, `storedCount` the records
 * stored and not deleted when it began, `previous` the candidates of earlier walks (any not in
 * `extra` was seen again and is dropped).
 */
export function decideDeletions(extra: readonly string[], storedCount: number, previous: ReadonlyMap<string, number>, guard: DeletionGuard, nowMs: number): DeletionDecision {
  if (guard.confirmed) return { kind: 'mark', due: extra, candidates: new Map() };
  const share = storedCount === 0 ? 0 : extra.length / storedCount;
  if (share > guard.maxShare || (guard.maxCount !== undefined && extra.length > guard.maxCount)) {
    return { kind: 'held', held: { count: extra.length, share } };
  }
  const due: string[] = [];
  const candidates = new Map<string, number>();
  for (const id of extra) {
    const since = previous.get(id);
    if (since !== undefined && nowMs - since >= guard.afterMs) due.push(id);
    else candidates.set(id, since ?? nowMs);
  }
  return { kind: 'mark', due, candidates };
}

/** `66.7 %`: one decimal, enough to compare with `maxDeleteShare`. */
export function formatShare(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)} %`;
}

/** The words that mark a drift whose deletions the guard held back; the status fix looks for them. */
export const HELD_DELETIONS = 'records would be marked deleted';

/** What the status page, `callsync status` and the reconcile output say about held deletions. */
export function heldMessage(held: HeldDeletions): string {
  return `${held.count} ${HELD_DELETIONS} (${formatShare(held.share)}); confirm with \`callsync reconcile --repair --confirm-deletions\``;
}

/** What they say about candidates waiting for the second whole walk. */
export function pendingMessage(count: number, dueAtMs: number): string {
  return `${count} records upstream no longer lists are marked deleted by a whole walk from ${new Date(dueAtMs).toISOString()} on (reconcile.deleteAfter), unless upstream lists them again; \`callsync reconcile --repair --confirm-deletions\` marks them now`;
}

/** The guard of the `reconcile` config section; `confirmed` comes from `--confirm-deletions`. */
export function deletionGuard(settings: { readonly maxDeleteShare: number; readonly maxDeleteCount?: number; readonly deleteAfter: number }, confirmed = false): DeletionGuard {
  return { maxShare: settings.maxDeleteShare, maxCount: settings.maxDeleteCount, afterMs: settings.deleteAfter, confirmed };
}
