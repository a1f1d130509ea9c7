import { normalizePage } from '../../normalize/index.js';
import type { Json, Sink } from '../../sink/sink.js';
import type { BusinessPlan } from './business-plan.js';

/**
 * Writes records the sink already stores to it again, from their stored `raw`, normalized with
 * today's normalizers, at the stream's current checkpoint position: the position stays where it
 * is, the upsert by id adds no row (a CRM target upserts by its unique property), and unchanged
 * rows add nothing to `recordsSynced`. For a target whose output depends on more than the record
 * (a CRM's archived recording link). Call it only while no page of the stream is being written,
 * or a page's newer position could be overwritten by the one loaded here. A stream that never
 * synced, or that is no longer configured, is left alone; a record today's normalizers refuse is
 * left as stored (it was stored once, so it is no new dead letter). Resolves with the records written.
 */
export async function rewriteStored(sink: Sink, plan: BusinessPlan, stream: string, raws: readonly Json[]): Promise<number> {
  const descriptor = plan.streams.find((candidate) => candidate.name === stream);
  if (descriptor === undefined || raws.length === 0) return 0;
  const checkpoint = await sink.checkpoints.load(plan.name, stream);
  if (checkpoint === undefined) return 0;
  let sent = 0;
  for (let from = 0; from < raws.length; from += sink.capabilities.maxBatchSize) {
    const part = raws.slice(from, from + sink.capabilities.maxBatchSize);
    const page = normalizePage(part, descriptor.normalize, plan.normalizeContext, plan.name, stream, descriptor.source);
    if (page.records.length === 0) continue;
    await sink.write({ businessId: plan.name, table: descriptor.table, records: page.records, deadLetters: [] }, checkpoint.position);
    sent += page.records.length;
  }
  return sent;
}
