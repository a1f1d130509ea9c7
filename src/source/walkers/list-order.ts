import type { HeadMark, ListOrder } from './positions.js';
import type { PageKeys } from './pager.js';

/**
 * What the records of a v1 list say about its order, read from their keys (`PageKeys`): the
 * order within a page and across its boundary, the head a walk starts from, and whether a
 * newest-first walk has reached what is stored.
 */

/** Ids kept from the head of a list: enough to recognise it again after a few deletions upstream. */
const HEAD_IDS = 10;

/**
 * What the order of a list's records says: `created_at` only ever rising (with at least one
 * rise) is oldest first, only ever falling is newest first; equal timestamps say nothing, and
 * a list that rises and falls is no evidence either way. `before` is the `created_at` of the last
 * record of the previous page, so the boundary between pages counts too. `minSteps` asks for that
 * many rises (or falls) before it counts as evidence.
 */
export function orderWithin(createdAt: readonly (string | undefined)[], before?: string, minSteps = 1): ListOrder | undefined {
  let rises = 0;
  let falls = 0;
  let previous = before;
  for (const at of createdAt) {
    if (at === undefined) continue;
    if (previous !== undefined && at > previous) rises += 1;
    if (previous !== undefined && at < previous) falls += 1;
    previous = at;
  }
  if (rises >= minSteps && falls === 0) return 'oldest_first';
  if (falls >= minSteps && rises === 0) return 'newest_first';
  return undefined;
}

/**
 * What the head page of a list says compared with the head stored by an earlier walk: a record
 * newer than anything stored, or the stored head found further down, means records arrived at
 * the head, so the list is newest first. `unchanged`: the head is as it was (nothing arrived
 * there, whatever the order).
 */
export function orderAgainstHead(keys: PageKeys, head: HeadMark): ListOrder | 'unchanged' | undefined {
  if (keys.ids.length === 0) return undefined;
  if (head.createdAt !== null && keys.createdAt.some((at) => (at ?? '') > (head.createdAt ?? ''))) return 'newest_first';
  const first = keys.ids[0];
  if (first !== undefined && first === head.ids[0]) return 'unchanged';
  const stored = new Set(head.ids);
  return keys.ids.slice(1).some((id) => stored.has(id ?? '')) && !stored.has(first ?? '') ? 'newest_first' : undefined;
}

/**
 * The head of a list as its first page shows it: the newest `created_at` and the first ids.
 * Records dated after `futureFrom` (a clock-skewed upstream) are left out: as the mark they would
 * make every later arrival look older than what is stored. They are listed in `future`.
 */
export function headMarkOf(keys: PageKeys, futureFrom: string): HeadMark | null {
  const future: string[] = [];
  keys.ids.forEach((id, index) => {
    if (id !== undefined && (keys.createdAt[index] ?? '') > futureFrom) future.push(id);
  });
  const kept = keys.ids.map((_, index) => index).filter((index) => !future.includes(keys.ids[index] ?? ''));
  const ids = kept.map((index) => keys.ids[index]).filter((id): id is string => id !== undefined);
  if (ids.length === 0) return null;
  let newest: string | null = null;
  for (const index of kept) {
    const at = keys.createdAt[index];
    if (at !== undefined && (newest === null || at > newest)) newest = at;
  }
  const atNewest = kept.filter((index) => newest !== null && keys.createdAt[index] === newest).map((index) => keys.ids[index]);
  const head = [...new Set([...ids.slice(0, HEAD_IDS), ...atNewest.filter((id): id is string => id !== undefined)])];
  return future.length === 0 ? { createdAt: newest, ids: head } : { createdAt: newest, ids: head, future: future.slice(0, HEAD_IDS) };
}

/**
 * Whether a page of a newest-first walk has reached records stored before: one of the stored
 * head's ids, or a record older than its newest `created_at`. Everything after such a page is
 * stored already; the rest of the page is the overlap, rewritten idempotently.
 */
export function reachesMark(keys: PageKeys, mark: HeadMark): boolean {
  const stored = new Set(mark.ids);
  return keys.ids.some((id, index) => {
    if (id !== undefined && stored.has(id)) return true;
    const at = keys.createdAt[index];
    return mark.createdAt !== null && at !== undefined && at < mark.createdAt;
  });
}
