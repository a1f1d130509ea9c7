import type { RecordingSource, RecordingStateStore } from '../../../../connectors/recordings/index.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { rewriteStored } from '../../../engine/sync/rewrite-stored.js';
import type { Sink } from '../../../sink/sink.js';

/**
 * Writes again every stored record whose recording was archived since `since`, business by business
 * and a page of ids at a time, so a sink whose target sends archived links
 * (`capabilities.archivedRecordingLinks`, a CRM with `recordings.publicBaseUrl`) replaces the
 * upstream link it sent with the page. Each record is read back from the copy the sink's state
 * keeps (where the archive's table lives) and written at its stream's current position, so no
 * checkpoint moves; the CRM upserts by its unique property, so nothing is duplicated. Resolves with
 * the records written again; nothing for any other sink.
 */
export async function resendArchived(
  sink: Sink,
  state: RecordingStateStore,
  sources: readonly RecordingSource[],
  plans: readonly BusinessPlan[],
  since: string,
): Promise<number> {
  if (sink.capabilities.archivedRecordingLinks !== true) return 0;
  let sent = 0;
  for (const plan of plans) {
    for (const source of sources) {
      const pageAfter = (after: string): ReturnType<RecordingStateStore['archivedSince']> =>
        state.archivedSince(plan.name, source, since, after, sink.capabilities.maxBatchSize);
      for (let page = await pageAfter(''); page.length > 0; page = await pageAfter(page[page.length - 1]?.id ?? '')) {
        sent += await rewriteStored(
          sink,
          plan,
          source.stream,
          page.map((row) => row.raw),
        );
      }
    }
  }
  return sent;
}
