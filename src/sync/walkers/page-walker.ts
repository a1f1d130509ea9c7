import type { JsonObject } from '../../sink.js';
import { normalizeAll, numberField, recordsOf } from './page-fields.js';
import { listPosition, readPosition, type ListPosition } from './positions.js';
import type { WalkContext, WalkPage } from './walker.js';

/**
 * Page paging (`page` from 1, `per_page`). The position is kept as an offset, like offset paging,
 * so a run resumes inside a partly consumed page and skips the records it already stored.
 */
export async function* walkPages(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const perPage = context.pageSize;
  let offset = readPosition(listPosition, position, context.descriptor.name)?.offset ?? 0;
  for (;;) {
    const page = Math.floor(offset / perPage) + 1;
    const payload = await context.fetch({ page, per_page: perPage });
    const raws = recordsOf(payload, context.descriptor);
    const fresh = raws.slice(offset - (page - 1) * perPage);
    offset = (page - 1) * perPage + raws.length;
    const total = numberField(payload, 'total');
    const at: ListPosition = { mode: 'offset', offset };
    yield { items: normalizeAll(context, fresh), position: at, total };
    if (raws.length < perPage || (total !== undefined && offset >= total)) return;
  }
}
