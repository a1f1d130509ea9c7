import type { HeadMark, ListOrder } from './positions.js';
import type { WalkItem } from './walker.js';

/** Ids kept from the head of a list: enough to recognise it again after a few deletions upstream. */
const HEAD_IDS = 10;

/** The normalized `created_at` of a record (comparable ISO text), when it has one. */
export function createdAt(item: WalkItem): string | undefined {
  if (!item.result.ok) return undefined;
  const value = item.result.fields.created_at;
  return typeof value === 'string' ? value : undefined;
}

function idOf(item: WalkItem): string | undefined {
  return item.result.ok ? item.result.id : undefined;
}

/**
 * What the order of a list's records says: `created_at` only ever rising (with at least one
 * rise) is oldest first, only ever falling is newest first; equal timestamps say nothing, and
 * a list that rises and falls is no evidence either way. `before` is the last record of the
 * previous page, so the boundary between pages counts too. `minSteps` asks for that many
 * rises (or falls) before it counts as evidence.
 */
export function orderWithin(items: readonly WalkItem[], before?: WalkItem, minSteps = 1): ListOrder | undefined {
  let rises = 0;
  let falls = 0;
  let previous = before === undefined ? undefined : createdAt(before);
  for (const item of items) {
    const at = createdAt(item);
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
export function orderAgainstHead(items: readonly WalkItem[], head: HeadMark): ListOrder | 'unchanged' | undefined {
  const first = items[0];
  if (first === undefined) return undefined;
  if (head.createdAt !== null && items.some((item) => (createdAt(item) ?? '') > (head.createdAt ?? ''))) return 'newest_first';
  if (idOf(first) !== undefined && idOf(first) === head.ids[0]) return 'unchanged';
  const known = new Set(head.ids);
  return items.slice(1).some((item) => known.has(idOf(item) ?? '')) && !known.has(idOf(first) ?? '') ? 'newest_first' : undefined;
}

/**
 * The head of a list as its first page shows it: the newest `created_at` and the first ids.
 * Records dated after `futureFrom` (a clock-skewed upstream) are left out: as the mark they would
 * make every later arrival look older than what is stored. They are listed in `future`.
 */
export function headMarkOf(all: readonly WalkItem[], futureFrom: string): HeadMark | null {
  const future = all.filter((item) => (createdAt(item) ?? '') > futureFrom).map(idOf).filter((id): id is string => id !== undefined);
  const items = all.filter((item) => !future.includes(idOf(item) ?? ''));
  const ids = items.map(idOf).filter((id): id is string => id !== undefined);
  if (ids.length === 0) return null;
  let newest: string | null = null;
  for (const item of items) {
    const at = createdAt(item);
    if (at !== undefined && (newest === null || at > newest)) newest = at;
  }
  const atNewest = items.filter((item) => newest !== null && createdAt(item) === newest).map(idOf);
  const kept = [...new Set([...ids.slice(0, HEAD_IDS), ...atNewest.filter((id): id is string => id !== undefined)])];
  return future.length === 0 ? { createdAt: newest, ids: kept } : { createdAt: newest, ids: kept, future: future.slice(0, HEAD_IDS) };
}

/**
 * Whether a page of a newest-first walk has reached records stored before: one of the stored
 * head's ids, or a record older than its newest `created_at`. Everything after such a page is
 * stored already; the rest of the page is the overlap, rewritten idempotently.
 */
export function reachesMark(items: readonly WalkItem[], mark: HeadMark): boolean {
  const known = new Set(mark.ids);
  return items.some((item) => {
    const id = idOf(item);
    if (id !== undefined && known.has(id)) return true;
    const at = createdAt(item);
    return mark.createdAt !== null && at !== undefined && at < mark.createdAt;
  });
}
