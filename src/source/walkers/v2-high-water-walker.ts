import { isoSeconds } from '../../normalize/index.js';
import type { Json, JsonObject } from '../../sink/sink.js';
import { isUpstreamError, type UpstreamResponse } from '../upstream/index.js';
import { revisitWindowStart } from './list-walker.js';
import { fetchPage, recordsOf } from './pager.js';
import { highWaterPosition, readPosition, storable, type HighWaterPosition } from './positions.js';
import { nowOf, type WalkContext, type WalkPage } from './walker.js';

/** A record the walk may store, with its keys (see `StreamDescriptor.keys`). */
interface Keyed {
  readonly raw: Json;
  readonly id: string | undefined;
  readonly createdAt: string | undefined;
}

/** Future-dated ids remembered so each is warned about once. */
const MAX_FUTURE_IDS = 100;

/**
 * v2 lists have no paging: one `limit`, newest first. The walk keeps a high-water mark (newest
 * `created_at` stored, plus the ids stored at exactly that second) and asks for enough records to
 * reach back to it. A response holding nothing at or before the mark, whatever its length, means
 * records may lie beyond what was returned: a full one widens `limit` and asks again; a short
 * one means the server caps `limit` without saying so (the cap is learned, stored as `serverCap`
 * and reported). When the mark cannot be reached the walk stores what it has and reports a gap
 * instead of pretending to be complete. A record dated more than `maxFutureSkewMs` ahead is
 * stored but never moves the mark (it would hide every record that arrives after it).
 */
export async function* walkV2HighWater(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const stored = readPosition(highWaterPosition, position, context.descriptor.name);
  const highWater = stored?.highWater ?? undefined;
  const idsAtHighWater = new Set(stored?.idsAtHighWater);
  let serverCap = stored?.serverCap;
  let maxLimit = Math.min(context.v2MaxLimit, Math.max(serverCap ?? context.v2MaxLimit, context.v2Limit));
  let limit = highWater === undefined ? maxLimit : Math.min(maxLimit, stored?.limit ?? context.v2Limit);
  for (;;) {
    let answer: UpstreamResponse;
    try {
      answer = await fetchPage(context, { limit });
    } catch (error) {
      // The server refuses this `limit`: settle for half and remember the cap.
      if (!isUpstreamError(error) || error.status !== 400 || limit <= context.v2Limit) throw error;
      maxLimit = Math.max(context.v2Limit, Math.floor(limit / 2));
      limit = maxLimit;
      serverCap = maxLimit;
      continue;
    }
    const raws = recordsOf(answer.payload, context.descriptor);
    const returned = raws.length;
    // Records still inside the revisit window ride along: the upsert rewrites only those that changed.
    const recentFrom = context.revisit === undefined ? undefined : revisitWindowStart(context.revisit);
    const { items, passedOver } = unstored(context, raws, highWater, recentFrom);
    const reachedMark = highWater !== undefined && (passedOver > 0 || items.some((item) => isAtOrBefore(item, highWater)));
    const possibleGap = highWater !== undefined && !reachedMark;
    if (serverCap !== undefined && returned > serverCap) serverCap = undefined;
    if (possibleGap && returned > 0 && returned < limit && returned !== serverCap) {
      serverCap = returned;
      context.warn(
        `${context.descriptor.path}: asked for ${limit} records, got ${returned} and none already stored; the server returns at most ${returned} whatever limit asks`,
      );
      maxLimit = Math.max(context.v2Limit, Math.min(maxLimit, serverCap));
    }
    if (possibleGap && returned >= limit && limit < maxLimit) {
      limit = Math.min(maxLimit, limit * 4);
      continue;
    }
    const fresh = items.filter((item) => isNew(item, highWater, idsAtHighWater) || isRecent(item, recentFrom));
    const future = futureDated(context, fresh, new Set(stored?.future));
    const mark = nextMark(
      fresh.filter((item) => !future.has(item.id ?? '')),
      highWater,
      idsAtHighWater,
    );
    const warning = possibleGap
      ? `${context.descriptor.path}: ${returned} records returned (limit ${limit}${serverCap === undefined ? '' : `, server cap ${serverCap}`}) and none already stored; older records beyond them may be missing (gap)`
      : undefined;
    const at: HighWaterPosition = {
      mode: 'high-water',
      highWater: mark.highWater,
      idsAtHighWater: mark.ids,
      limit,
      serverCap,
      future: future.size === 0 ? undefined : [...future].slice(0, MAX_FUTURE_IDS),
    };
    yield { records: fresh.map((item) => item.raw), position: storable(at), warning, replacedUtf8: answer.replacedUtf8 };
    return;
  }
}

/**
 * The records this walk may store, with their keys. One dated before the mark and before the
 * revisit window is neither new nor recent: it is only counted (it reaches the mark), never handed
 * on to be normalized; on an idle poll that is the whole response. A record whose date cannot be
 * read is handed on, so a broken one still reaches the dead letters.
 */
function unstored(context: WalkContext, raws: readonly Json[], highWater: string | undefined, recentFrom: string | undefined) {
  const { keys } = context.descriptor;
  const items: Keyed[] = [];
  let passedOver = 0;
  for (const raw of raws) {
    const at = keys.createdAt(raw, context.normalizeContext);
    if (at !== undefined && highWater !== undefined && at < highWater && (recentFrom === undefined || at < recentFrom)) passedOver += 1;
    else items.push({ raw, id: keys.id(raw), createdAt: at });
  }
  return { items, passedOver };
}

/** Ids of records dated beyond the allowed skew; each new one is warned about once. */
function futureDated(context: WalkContext, items: readonly Keyed[], warned: ReadonlySet<string>): Set<string> {
  const limit = isoSeconds(nowOf(context) + context.maxFutureSkewMs);
  const future = new Set<string>();
  for (const { id, createdAt: at } of items) {
    if (at === undefined || id === undefined || at <= limit) continue;
    future.add(id);
    if (!warned.has(id)) {
      context.warn(
        `${context.descriptor.path}: record ${JSON.stringify(id)} is dated ${at}, more than ${Math.round(context.maxFutureSkewMs / 60_000)} min ahead of now; stored, but it does not move the high-water mark`,
      );
    }
  }
  return future;
}

function isRecent(item: Keyed, recentFrom: string | undefined): boolean {
  return recentFrom !== undefined && item.createdAt !== undefined && item.createdAt >= recentFrom;
}

function isAtOrBefore(item: Keyed, highWater: string): boolean {
  return item.createdAt !== undefined && item.createdAt <= highWater;
}

/** A record whose id or date cannot be read is always handed on, so it reaches the dead letters. */
function isNew(item: Keyed, highWater: string | undefined, idsAtHighWater: Set<string>): boolean {
  const { id, createdAt: at } = item;
  if (id === undefined || highWater === undefined || at === undefined || at > highWater) return true;
  return at === highWater && !idsAtHighWater.has(id);
}

function nextMark(fresh: readonly Keyed[], highWater: string | undefined, idsAtHighWater: Set<string>) {
  let mark = highWater ?? null;
  let ids = new Set(idsAtHighWater);
  for (const { id, createdAt: at } of fresh) {
    if (at === undefined || id === undefined) continue;
    if (mark === null || at > mark) {
      mark = at;
      ids = new Set([id]);
    } else if (at === mark) {
      ids.add(id);
    }
  }
  return { highWater: mark, ids: [...ids] };
}
