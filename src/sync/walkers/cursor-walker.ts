import { isUpstreamError } from '../../upstream/index.js';
import type { JsonObject } from '../../sink.js';
import { walkOffsetFrom } from './offset-walker.js';
import { normalizeAll, numberField, recordsOf, stringField } from './page-fields.js';
import { listPosition, readPosition, type ListPosition } from './positions.js';
import type { WalkContext, WalkPage } from './walker.js';

/**
 * Cursor paging over an oldest-first list, with the consumed-record count kept beside the cursor.
 * That count is the high-water mark the walk falls back to when the server rejects a stored
 * cursor (expired, 400): it resumes by offset one page before it, so nothing is missed and the
 * overlap costs one page, never a full re-sync.
 */
export async function* walkCursor(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const stored = readPosition(listPosition, position, context.descriptor.name);
  let offset = stored?.offset ?? 0;
  let cursor = stored?.mode === 'cursor' ? stored.cursor : undefined;
  if (stored?.mode === 'offset') {
    // The last walk ended without a resumable cursor; offset is then the cheapest way on.
    yield* walkOffsetFrom(context, offset);
    return;
  }
  for (;;) {
    let payload: JsonObject;
    try {
      payload = await context.fetch({ limit: context.pageSize, cursor });
    } catch (error) {
      if (cursor === undefined || !isRejectedCursor(error)) throw error;
      const resumeAt = Math.max(0, offset - context.pageSize);
      context.warn(`${context.descriptor.path}: stored cursor rejected (${String((error as Error).message)}); resuming by offset from ${resumeAt}`);
      yield* walkOffsetFrom(context, resumeAt);
      return;
    }
    const raws = recordsOf(payload, context.descriptor);
    offset += raws.length;
    const next = stringField(payload, 'next_cursor');
    const hasMore = payload.has_more === true;
    const total = numberField(payload, 'total');
    const resumable = next ?? (hasMore ? undefined : cursor);
    const at: ListPosition = resumable === undefined ? { mode: 'offset', offset } : { mode: 'cursor', cursor: resumable, offset };
    yield { items: normalizeAll(context, raws), position: at, total };
    if (!hasMore) return;
    if (next === undefined) {
      // has_more without a cursor: an instance without cursor support; go on by offset.
      yield* walkOffsetFrom(context, offset);
      return;
    }
    cursor = next;
  }
}

function isRejectedCursor(error: unknown): boolean {
  return isUpstreamError(error) && error.status === 400;
}
