import type { JsonObject } from '../../sink/sink.js';
import { fetchPage, recordsOf } from './pager.js';
import type { WalkContext, WalkPage } from './walker.js';

/** Endpoints that return every record at once (tracked numbers): one request, upsert all. */
export async function* walkFullRefresh(context: WalkContext, _position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  const { payload, replacedUtf8 } = await fetchPage(context, {});
  const records = recordsOf(payload, context.descriptor);
  yield { records, position: { mode: 'full', count: records.length }, total: records.length, replacedUtf8 };
}
