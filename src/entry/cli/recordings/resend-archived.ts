import type { RecordingSource, RecordingStateStore } from '../../../../connectors/recordings/index.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { rewriteStored } from '../../../engine/sync/rewrite-stored.js';
import type { Sink } from '../../../sink/sink.js';

/**
 * Runs `write` only while no other writer has the business × stream (its stream lease), and
 * answers false without running it when one has: `run`'s archive job, whose rewrite must not
 * race a sync of the same stream. `held` is aborted if the lease is lost meanwhile; `write` then
 * stops before its next page. A backfill holds every lease it writes already.
 */
export type StreamExclusive = (business: string, stream: string, write: (held: AbortSignal) => Promise<void>) => Promise<boolean>;

interface ResendOptions {
  readonly sink: Sink;
  readonly state: RecordingStateStore;
  readonly sources: readonly RecordingSource[];
  readonly plans: readonly BusinessPlan[];
  /** @defaultValue none: the caller holds every stream's lease (a backfill) */
  readonly exclusive?: StreamExclusive;
  /** @defaultValue the clock */
  readonly now?: () => Date;
}

/** What a resend did: the records written again, and the business × streams left for later (another writer had them). */
export interface ResendResult {
  readonly sent: number;
  readonly busy: readonly string[];
}

/**
 * Writes again every stored record whose recording is archived and whose archived link no write
 * has carried yet (`link_sent_at` in the archive's table), a page of ids at a time, so a sink whose
 * target sends archived links (`capabilities.archivedRecordingLinks`, a CRM with
 * `recordings.publicBaseUrl`) replaces the upstream link it sent with the page. Each record is read
 * back from the copy the sink's state keeps (where the archive's table lives) and written at its
 * stream's current position, so no checkpoint moves; the CRM upserts by its unique property, so
 * nothing is duplicated. A page's links are marked sent only after its write resolved, so a crash
 * in between sends that page again, never loses it (a record the CRM refused is a dead letter, and
 * its replay looks the archived link up again). Nothing for any other sink.
 */
export async function resendArchived(options: ResendOptions): Promise<ResendResult> {
  const { sink, state } = options;
  if (sink.capabilities.archivedRecordingLinks !== true) return { sent: 0, busy: [] };
  const now = (): string => (options.now?.() ?? new Date()).toISOString();
  let sent = 0;
  const busy: string[] = [];
  for (const plan of options.plans) {
    for (const source of options.sources) {
      if (!plan.streams.some((stream) => stream.name === source.stream)) continue;
      const write = async (held?: AbortSignal): Promise<void> => {
        let after = '';
        for (;;) {
          held?.throwIfAborted();
          const readAt = now();
          const page = await state.unsentLinks(plan.name, source, after, sink.capabilities.maxBatchSize);
          const last = page[page.length - 1];
          if (last === undefined) return;
          sent += await rewriteStored(
            sink,
            plan,
            source.stream,
            page.map((row) => row.raw),
          );
          await state.markLinksSent(
            plan.name,
            source.stream,
            page.map((row) => row.id),
            readAt,
            now(),
          );
          after = last.id;
        }
      };
      if (options.exclusive === undefined) await write();
      else if (!(await options.exclusive(plan.name, source.stream, write))) busy.push(`${plan.name}/${source.stream}`);
    }
  }
  return { sent, busy };
}
