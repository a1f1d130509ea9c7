import type { JsonObject } from '../../sink/sink.js';
import { normalizeAll, recordsOf } from './pager.js';
import type { WalkContext, WalkPage } from './walker.js';

/** Endpoints that return every record at once (tracked numbers): one request, upsert all. */
export async function* walkFullRefresh(context: WalkContext, _position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const payload = await context.fetch({});
  const raws = recordsOf(payload, context.descriptor);
  yield { items: normalizeAll(context, raws), position: { mode: 'full', count: raws.length }, total: raws.length };
}
