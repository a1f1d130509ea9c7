import type { JsonObject } from '../../sink.js';
import { normalizeAll, numberField, recordsOf } from './page-fields.js';
import { listPosition, readPosition, type ListPosition } from './positions.js';
import type { WalkContext, WalkPage } from './walker.js';

/**
 * Offset paging over an oldest-first list. The stored offset is the number of records already
 * consumed, so an incremental run asks only for what arrived since: one request when nothing did.
 */
export async function* walkOffset(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  yield* walkOffsetFrom(context, readPosition(listPosition, position, context.descriptor.name)?.offset ?? 0);
}

export async function* walkOffsetFrom(context: WalkContext, startOffset: number): AsyncGenerator<WalkPage> {
  let offset = startOffset;
  for (;;) {
    const payload = await context.fetch({ limit: context.pageSize, offset });
    const raws = recordsOf(payload, context.descriptor);
    offset += raws.length;
    const total = numberField(payload, 'total');
    const at: ListPosition = { mode: 'offset', offset };
    yield { items: normalizeAll(context, raws), position: at, total };
    if (raws.length < context.pageSize || (total !== undefined && offset >= total)) return;
  }
}
