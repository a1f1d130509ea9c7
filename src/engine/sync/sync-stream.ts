import { setImmediate } from 'node:timers/promises';
import { canonicalJson, normalizePage, type NormalizeContext, type NormalizeResult } from '../../normalize/index.js';
import type { Sink, SinkNote } from '../../sink/sink.js';
import type { Source } from '../../source/source.js';
import type { WalkPage } from '../../source/walkers/index.js';
import { addNotes, mergedIds, replacedUtf8, type RewriteReason } from './page-report.js';
import type { StreamRunResult, SyncEventHandler } from './sync-event.js';

/** What a stream run has stored so far, page by page. */
export interface StreamTally {
  pages: number;
  records: number;
  written: number;
  unchanged: number;
  deadLettered: number;
}

export interface StreamRunOptions {
  readonly businessId: string;
  /** The stream's pages, raw: its descriptor, walker and the business's upstream client, bound by the caller. */
  readonly source: Source;
  readonly sink: Sink;
  /** The business's settings for normalizing its records. */
  readonly normalizeContext: NormalizeContext;
  /**
   * Aborting stops the run: a page already fetched is stored first, a request in flight is given
   * up; either way the run returns `stopped` with what it stored, never a failure.
   */
  readonly signal?: AbortSignal;
  /** Hears `stream-start`, `page-stored`, `warning` and `rewrite`. */
  readonly onEvent?: SyncEventHandler;
  /**
   * Pages requested ahead of the one being stored: with 1 the next request is in flight while this
   * page is written, so the upstream budget and the sink work at the same time; 0 reads and stores
   * one page at a time (a trace of one page's path). Pages are stored strictly in order either way.
   * @defaultValue 1
   */
  readonly readAhead?: 0 | 1;
  /** Kept up to date page by page, so a caller still has the counts of a run that fails. @defaultValue a tally of its own */
  readonly tally?: StreamTally;
}

/**
 * Syncs one stream of one business from its stored checkpoint to the end of what upstream has.
 * Each page goes forward through the stages in one sequence: the source reads it (walker, upstream
 * client, HTTP), the normalize stage turns its records into records and dead letters, the sink
 * writes them together with the position after the page, so a run cut off at any point resumes
 * where it stopped, repeating at most the page in flight.
 */
export async function syncStream(options: StreamRunOptions): Promise<StreamRunResult> {
  const { businessId, source, sink, normalizeContext, signal, onEvent } = options;
  const { descriptor } = source;
  const { table, normalize } = descriptor;
  const stream = descriptor.name;
  const readAhead = (options.readAhead ?? 1) > 0;
  const batchSize = sink.capabilities.maxBatchSize;
  if (!(Number.isInteger(batchSize) && batchSize >= 1) && batchSize !== Number.POSITIVE_INFINITY)
    throw new RangeError(`the sink's maxBatchSize must be a whole number from 1, got ${batchSize}`);
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    onEvent?.({ type: 'warning', businessId, stream, message });
  };
  // Every rewrite of a record on its way to the sink is said: a warning naming it, and a count.
  const rewritten = (reason: RewriteReason, said: { ids: readonly string[]; message: string } | undefined): void => {
    if (said === undefined || said.ids.length === 0) return;
    warn(said.message);
    onEvent?.({ type: 'rewrite', businessId, stream, reason, count: said.ids.length });
  };
  const totals = options.tally ?? { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
  let notes: readonly SinkNote[] = [];
  // The sink's notes are summed over the run and shown once each, not once per page.
  const ended = (stopped: boolean): StreamRunResult => ({ ...totals, warnings, notes: notes.map((note) => `${note.count} ${note.message}`), stopped });
  onEvent?.({ type: 'stream-start', businessId, stream });
  try {
    const stored = await sink.checkpoints.load(businessId, stream);
    const walk = source.pages(stored?.position, { warn });
    let position = stored?.position;
    // The next page's read, when it is already under way (one page ahead).
    let ahead: Promise<IteratorResult<WalkPage>> | undefined;
    // One page, forward through the stages in one sequence: the source reads it (walker, upstream
    // client, HTTP), the normalize stage turns its records into records and dead letters, the sink
    // writes them with the position after the page. Nothing of this file runs again until the next.
    const syncPage = async (): Promise<'more' | 'end' | 'stopped'> => {
      const step = await (ahead ?? walk.next());
      ahead = undefined;
      if (step.done === true) return 'end';
      const page = step.value;
      const raws = page.records;
      const stopping = signal?.aborted === true;
      // An empty page that leaves the position where it is stored (an idle poll of most streams)
      // has nothing to store: no write transaction just to write the same checkpoint again.
      const nothingToStore = raws.length === 0 && position !== undefined && canonicalJson(page.position) === canonicalJson(position);
      if (readAhead && !stopping) {
        ahead = walk.next();
        // If the write below fails, the prefetched page is dropped; its failure must not go unhandled.
        ahead.catch(ignore);
        // Lets the prefetched request leave before the page is stored. undici sends on a reused
        // keep-alive socket from a chain of up to two immediates (a turn before reusing the socket,
        // then one to see anything the server sent unasked), and storing a page is synchronous work:
        // stored in this turn, the next request left only after the write, and fetch and write ran
        // in series. Three check phases see that chain through even when the request was queued
        // after the first hop. Without a write there is nothing to overlap (an idle poll's page).
        if (!nothingToStore) for (let hop = 0; hop < 3; hop++) await setImmediate();
      }
      if (page.warning !== undefined) warn(page.warning);

      const normalized = normalizePage(raws, normalize, normalizeContext, businessId, stream, descriptor.source);
      if (page.replacedUtf8 === true)
        rewritten(
          'invalid_utf8',
          replacedUtf8(raws, descriptor, (raw) => idOf(normalize(raw, normalizeContext))),
        );
      if (normalized.repeatsAnId) rewritten('merged_id', mergedIds(normalized.records, descriptor));

      // In parts of the sink's batch size. Only the last part moves the checkpoint past the page
      // (earlier parts carry the position before it), so a cut-off in between repeats the page and
      // never skips its rest. A page without records is still written once: its dead letters, and
      // the checkpoint past it.
      const { records, deadLetters } = normalized;
      let written = 0;
      let deadLettered = 0;
      let pageNotes: SinkNote[] | undefined;
      for (let from = 0; !nothingToStore && (from === 0 || from < records.length); from += batchSize) {
        const last = from + batchSize >= records.length;
        const result = await sink.write(
          { businessId, table, records: from === 0 && last ? records : records.slice(from, from + batchSize), deadLetters: from === 0 ? deadLetters : [] },
          (last ? page.position : position) ?? {},
        );
        written += result.written;
        deadLettered += result.deadLettered;
        totals.unchanged += result.unchanged;
        if (result.notes !== undefined) pageNotes = addNotes(pageNotes ?? [], result.notes);
      }

      position = page.position;
      totals.pages += 1;
      totals.records += raws.length;
      totals.written += written;
      totals.deadLettered += deadLettered;
      if (pageNotes !== undefined) notes = addNotes(notes, pageNotes);
      onEvent?.({
        type: 'page-stored',
        page: {
          businessId,
          stream,
          records: raws.length,
          written,
          deadLettered,
          ...(pageNotes === undefined ? {} : { notes: pageNotes }),
          total: page.total,
        },
      });
      // Stopping (aborted before this page was stored) or aborted since: a signal stays aborted.
      if (signal?.aborted !== true) return 'more';
      await ahead?.catch(ignore);
      await walk.return(undefined);
      return 'stopped';
    };
    for (let next = await syncPage(); next !== 'end'; next = await syncPage()) if (next === 'stopped') return ended(true);
    return ended(false);
  } catch (error) {
    // An abort reaches a request in flight (or a wait for budget or a retry) as whatever that
    // threw ("This operation was aborted", an UpstreamError around it): the run was stopped on
    // purpose, and every page counted above is stored with its checkpoint.
    if (signal?.aborted === true) return ended(true);
    throw error;
  }
}

function ignore(): undefined {
  return undefined;
}

function idOf(result: NormalizeResult): string | undefined {
  return result.ok ? result.id : undefined;
}
