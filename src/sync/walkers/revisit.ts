import { isoSeconds } from '../../normalize/index.js';
import type { JsonObject } from '../../sink.js';
import { normalizeAll, recordsOf } from './pager.js';
import { listPosition, readPosition, storable, type ListPosition } from './positions.js';
import type { RevisitSettings, WalkContext, WalkItem, WalkPage, Walker } from './walker.js';

/** The oldest `created_at` that is still revisited, in the stored timestamp form. */
export function revisitWindowStart(settings: RevisitSettings): string {
  return isoSeconds(settings.now() - settings.windowMs);
}

/** `[offset of a page's first record, its created_at]`, oldest first. */
type Mark = [number, string];

const MAX_MARKS = 2_000;

/**
 * Wraps a v1 list walker (cursor, offset, page) so that, on an oldest-first list, records created
 * within the window are read again every `everyMs` (newest-first walks reach down into the window
 * themselves, see `walkFromHead` in `list-walker.ts`): the walk remembers where each recent page began (`marks`), and when a
 * revisit is due it re-reads by offset from the page before the window to the stored end. Rows
 * that did not change are not rewritten (the sinks compare `raw`), so a revisit costs requests in
 * proportion to the window, once per interval, and never a full re-sync.
 */
export function withRevisit(inner: Walker, settings: RevisitSettings): Walker {
  return async function* walk(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
    const now = settings.now();
    const windowStart = revisitWindowStart(settings);
    const stored = readPosition(listPosition, position, context.descriptor.name);
    let marks: Mark[] = stored?.marks ?? [];
    let revisitedAt = stored?.revisitedAt ?? now;
    if (stored !== undefined && position !== undefined && byOffset(stored) && now - revisitedAt >= settings.everyMs && marks.length > 0) {
      revisitedAt = now;
      const done: ListPosition = { ...stored, marks, revisitedAt };
      yield* revisitFrom(context, startOffset(marks, windowStart), stored.offset, position, storable(done));
    }
    for await (const page of inner(context, position)) {
      const walked = readPosition(listPosition, page.position, context.descriptor.name);
      if (walked === undefined) throw new Error(`${context.descriptor.path}: the walk yielded no position`);
      if (!byOffset(walked)) {
        yield page;
        continue;
      }
      marks = addMark(marks, walked.offset - page.items.length, page.items, windowStart);
      const at: ListPosition = { ...walked, marks, revisitedAt };
      yield { ...page, position: storable(at) };
    }
  };
}

async function* revisitFrom(
  context: WalkContext,
  start: number,
  end: number,
  storedPosition: JsonObject,
  finalPosition: JsonObject,
): AsyncGenerator<WalkPage> {
  for (let offset = start; offset < end; ) {
    const raws = recordsOf(await context.fetch({ limit: context.pageSize, offset }), context.descriptor).slice(0, end - offset);
    offset += raws.length;
    const last = raws.length === 0 || offset >= end;
    // Only the last revisit page records that the revisit happened; a cut-off one is redone.
    yield { items: normalizeAll(context, raws), position: last ? finalPosition : storedPosition };
    if (last) return;
  }
}

/** The offset of the last page that began before the window, so the whole window is covered. */
function startOffset(marks: readonly Mark[], windowStart: string): number {
  let start = marks[0]?.[0] ?? 0;
  for (const [offset, createdAt] of marks) {
    if (createdAt < windowStart) start = offset;
  }
  return start;
}

function addMark(marks: readonly Mark[], offset: number, items: readonly WalkItem[], windowStart: string): Mark[] {
  const first = items.find((item) => item.result.ok && typeof item.result.fields.created_at === 'string');
  const createdAt = first?.result.ok ? (first.result.fields.created_at as string) : undefined;
  const next: Mark[] = createdAt === undefined ? [...marks] : [...marks, [offset, createdAt]];
  // Keep every mark in the window and the last one before it (where a revisit starts).
  const firstInWindow = next.findIndex(([, at]) => at >= windowStart);
  const keepFrom = firstInWindow === -1 ? Math.max(0, next.length - 1) : Math.max(0, firstInWindow - 1);
  return next.slice(keepFrom).slice(-MAX_MARKS);
}

/** Walks from the head (newest first, or order not known yet) revisit by walking further down instead. */
function byOffset(position: ListPosition): boolean {
  return position.order !== 'newest_first' && position.descent === undefined;
}
