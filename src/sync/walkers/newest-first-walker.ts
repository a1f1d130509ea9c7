import type { JsonObject } from '../../sink.js';
import { isUpstreamError } from '../../upstream/index.js';
import { revisitWindowStart } from './revisit.js';
import { normalizeAll, recordsOf } from './page-fields.js';
import { highWaterPosition, readPosition, type HighWaterPosition } from './positions.js';
import type { WalkContext, WalkItem, WalkPage } from './walker.js';

/**
 * v2 lists have no paging: one `limit`, newest first. The walk keeps a high-water mark (newest
 * `created_at` stored, plus the ids stored at exactly that second) and asks for enough records to
 * reach back to it. A full response holding nothing at or before the mark means records may lie
 * beyond the limit: the walk widens `limit` and asks again, and when it cannot widen further it
 * stores what it has and reports a gap instead of pretending to be complete.
 */
export async function* walkNewestFirst(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const stored = readPosition(highWaterPosition, position, context.descriptor.name);
  const highWater = stored?.highWater ?? undefined;
  const idsAtHighWater = new Set(stored?.idsAtHighWater);
  let limit = Math.min(context.v2MaxLimit, stored?.limit ?? context.v2Limit);
  if (highWater === undefined) limit = context.v2MaxLimit;

  let maxLimit = context.v2MaxLimit;
  for (;;) {
    let payload: JsonObject;
    try {
      payload = await context.fetch({ limit });
    } catch (error) {
      // The server caps `limit` somewhere we were not told: settle for half and remember the cap.
      if (!isUpstreamError(error) || error.status !== 400 || limit <= context.v2Limit) throw error;
      maxLimit = Math.max(context.v2Limit, Math.floor(limit / 2));
      limit = maxLimit;
      continue;
    }
    const items = normalizeAll(context, recordsOf(payload, context.descriptor));
    const full = items.length >= limit;
    const reachedMark = highWater !== undefined && items.some((item) => isAtOrBefore(item, highWater));
    if (full && !reachedMark && limit < maxLimit) {
      limit = Math.min(maxLimit, limit * 4);
      continue;
    }
    // Records still inside the revisit window ride along: the upsert rewrites only those that changed.
    const recentFrom = context.revisit === undefined ? undefined : revisitWindowStart(context.revisit);
    const fresh = items.filter((item) => isNew(item, highWater, idsAtHighWater) || isRecent(item, recentFrom));
    const mark = nextMark(fresh, highWater, idsAtHighWater);
    const warning =
      full && !reachedMark
        ? `${context.descriptor.path}: ${items.length} records returned at the largest limit (${limit}) and none already stored; older records beyond the limit may be missing (gap)`
        : undefined;
    const at: HighWaterPosition = { mode: 'high-water', highWater: mark.highWater, idsAtHighWater: mark.ids, limit };
    yield { items: fresh, position: at, warning };
    return;
  }
}

function isRecent(item: WalkItem, recentFrom: string | undefined): boolean {
  const at = createdAt(item);
  return recentFrom !== undefined && at !== undefined && at >= recentFrom;
}

function createdAt(item: WalkItem): string | undefined {
  if (!item.result.ok) return undefined;
  const value = item.result.fields.created_at;
  return typeof value === 'string' ? value : undefined;
}

function isAtOrBefore(item: WalkItem, highWater: string): boolean {
  const at = createdAt(item);
  return at !== undefined && at <= highWater;
}

/** Records that failed to normalize are always passed on, so they reach the dead letters. */
function isNew(item: WalkItem, highWater: string | undefined, idsAtHighWater: Set<string>): boolean {
  if (!item.result.ok || highWater === undefined) return true;
  const at = createdAt(item);
  if (at === undefined || at > highWater) return true;
  return at === highWater && !idsAtHighWater.has(item.result.id);
}

function nextMark(fresh: readonly WalkItem[], highWater: string | undefined, idsAtHighWater: Set<string>) {
  let mark = highWater ?? null;
  let ids = new Set(idsAtHighWater);
  for (const item of fresh) {
    const at = createdAt(item);
    if (at === undefined || !item.result.ok) continue;
    if (mark === null || at > mark) {
      mark = at;
      ids = new Set([item.result.id]);
    } else if (at === mark) {
      ids.add(item.result.id);
    }
  }
  return { highWater: mark, ids: [...ids] };
}
