import { setImmediate } from 'node:timers/promises';
import { canonicalJson, normalizePage, type NormalizeContext, type NormalizeResult } from '../../normalize/index.js';
import { writeFlush, type FlushOutcome, type FlushPage, type PageStored } from '../../sink/flush.js';
import type { FlushLimits, Sink, SinkNote } from '../../sink/sink.js';
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
  /** Milliseconds on a monotonic clock, for the sink's `flush.maxMs`. @defaultValue `performance.now` */
  readonly now?: () => number;
}

/** A stream's walk answered a step: a page (or its end), the flush's time ran out, or the read failed (the signal stopped it, or not). */
const DUE: unique symbol = Symbol('flush due');
const ABORTED: unique symbol = Symbol('aborted');
type Step = IteratorResult<WalkPage> | typeof DUE | typeof ABORTED | { readonly failed: unknown };

/** A page read and normalized, waiting for its flush to be written. */
interface GatheredPage extends FlushPage {
  readonly page: WalkPage;
}

/** What a sink says when it declares no flush: every page by itself. */
const ONE_PAGE: FlushLimits = Object.freeze({ maxRows: 0, maxMs: 0 });

/**
 * Syncs one stream of one business from its stored checkpoint to the end of what upstream has.
 * Each page goes forward through the stages in one sequence: the source reads it (walker, upstream
 * client, HTTP), the normalize stage turns its records into records and dead letters, the sink
 * writes them together with the position after the page, so a run cut off at any point resumes
 * where it stopped, repeating at most the page in flight. A sink that declares `flush` limits has
 * several pages gathered into one write, with the position after the last of them; a cut-off then
 * repeats fetching the pages gathered and not yet written; reading ahead, the next flush is read
 * and normalized while the last one is written (one write in flight, so checkpoints move in order).
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
  const { maxRows, maxMs } = sink.capabilities.flush ?? ONE_PAGE;
  if (!(maxRows >= 0 && maxMs >= 0)) throw new RangeError(`the sink's flush limits must be from 0, got maxRows ${maxRows}, maxMs ${maxMs}`);
  const now = options.now ?? performance.now.bind(performance);
  // A sink that gathers pages has the next flush read while the last is written; every page by
  // itself is written before the next is normalized (the read ahead overlaps it already).
  const overlap = readAhead && sink.capabilities.flush !== undefined;
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
    // Where the stored checkpoint is (or will be, once the write in flight is stored), and where the last page read left the stream.
    let storedPosition = stored?.position;
    let position = stored?.position;
    // The next page's read, when it is already under way (one page ahead).
    let ahead: Promise<IteratorResult<WalkPage>> | undefined;
    // Pages read and normalized, not yet written; their records; when the first was gathered; whether any has something to store.
    let gathered: GatheredPage[] = [];
    let gatheredRows = 0;
    let gatheredSince = 0;
    let gatheredWrites = false;
    // The flush being written while the next is read (`overlap` only), and whether it has settled.
    let writing: { readonly pages: readonly GatheredPage[]; readonly outcome: Promise<FlushOutcome>; settled: boolean } | undefined;

    // The next page, or DUE when the gathered pages' time runs out first (the read goes on), or the
    // read's failure: the gathered pages and the write in flight are dealt with before it is thrown.
    const nextStep = async (): Promise<Step> => {
      const pending = ahead ?? walk.next();
      ahead = undefined;
      try {
        if (gathered.length === 0 || maxMs === Number.POSITIVE_INFINITY) return await pending;
        pending.catch(ignore);
        let timer: NodeJS.Timeout | undefined;
        const due = new Promise<typeof DUE>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, gatheredSince + maxMs - now()), DUE);
        });
        const first = await Promise.race([pending, due]).finally(() => clearTimeout(timer));
        if (first === DUE) ahead = pending;
        return first;
      } catch (error) {
        // An abort reaches a request in flight (or a wait for budget or a retry) as whatever that
        // threw ("This operation was aborted", an UpstreamError around it): the run was stopped on purpose.
        return signal?.aborted === true ? ABORTED : { failed: error };
      }
    };

    // One step, forward through the stages in one sequence: the source reads a page (walker,
    // upstream client, HTTP), the normalize stage turns its records into records and dead letters,
    // and, when the flush is due, the sink writes the gathered pages with the position after the
    // last. Nothing of this file runs again until the next step.
    const syncPage = async (): Promise<'more' | 'end' | 'stopped'> => {
      const step = await nextStep();
      const page = step === DUE || step === ABORTED || 'failed' in step || step.done === true ? undefined : step.value;
      if (page !== undefined) {
        const raws = page.records;
        const stopping = signal?.aborted === true;
        // An empty page that leaves the position where it is (an idle poll of most streams) has
        // nothing to store: no write transaction just to write the same checkpoint again.
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
        if (gathered.length === 0) gatheredSince = maxMs === 0 ? 0 : now();
        gathered.push({ page, records: normalized.records, deadLetters: normalized.deadLetters, position: page.position });
        gatheredRows += normalized.records.length;
        gatheredWrites ||= !nothingToStore;
        position = page.position;
      }
      const failed = typeof step === 'object' && 'failed' in step ? step : undefined;
      // Stopping (aborted before or while this page was read): what is gathered is stored first.
      const stopping = step === ABORTED || signal?.aborted === true;
      const last = page === undefined && step !== DUE;
      // A failed read ends the run too: what is gathered is stored before the failure is thrown.
      const due = gathered.length > 0 && (last || stopping || gatheredRows >= maxRows || maxMs === 0 || now() - gatheredSince >= maxMs);
      // The flushes stored by this step, in order: the one in flight first (awaited before another
      // starts, so checkpoints move in order; at the end; or once it has settled), then this one.
      const flushes: { readonly pages: readonly GatheredPage[]; readonly outcome: FlushOutcome }[] = [];
      if (writing !== undefined && (due || last || stopping || writing.settled)) {
        flushes.push({ pages: writing.pages, outcome: await writing.outcome });
        writing = undefined;
      }
      if (due && flushes[0]?.outcome.failure === undefined) {
        const pages = gathered;
        const outcome = writeFlush(sink, { businessId, table, pages, storedPosition, writes: gatheredWrites });
        storedPosition = (pages[pages.length - 1] as GatheredPage).position;
        gathered = [];
        gatheredRows = 0;
        gatheredWrites = false;
        if (overlap && !last && !stopping) {
          const inFlight = { pages, outcome, settled: false };
          writing = inFlight;
          void outcome.then(() => void (inFlight.settled = true));
        } else flushes.push({ pages, outcome: await outcome });
      }
      // Each stored page told once its flush is stored, with its share of the flush's counts.
      for (const { pages, outcome } of flushes) {
        totals.unchanged += outcome.unchanged;
        for (let index = 0; index < outcome.stored.length; index++) {
          const { page: done } = pages[index] as GatheredPage;
          const { written, deadLettered, notes: pageNotes } = outcome.stored[index] as PageStored;
          const summed = pageNotes === undefined ? undefined : addNotes([], pageNotes);
          if (summed !== undefined) notes = addNotes(notes, summed);
          totals.pages += 1;
          totals.records += done.records.length;
          totals.written += written;
          totals.deadLettered += deadLettered;
          onEvent?.({
            type: 'page-stored',
            page: {
              businessId,
              stream,
              records: done.records.length,
              written,
              deadLettered,
              ...(summed === undefined ? {} : { notes: summed }),
              total: done.total,
            },
          });
        }
        if (outcome.failure !== undefined) throw outcome.failure.error;
      }
      if (failed !== undefined) throw failed.failed;
      // Aborted while a flush was written (the write awaited, so the signal may have changed since
      // `stopping` was read): stop before the next page, nothing being gathered then.
      if (stopping || ((signal?.aborted as boolean | undefined) === true && gathered.length === 0 && writing === undefined)) {
        await ahead?.catch(ignore);
        if (step !== ABORTED) await walk.return(undefined);
        return 'stopped';
      }
      return last ? 'end' : 'more';
    };
    for (let next = await syncPage(); next !== 'end'; next = await syncPage()) if (next === 'stopped') return ended(true);
    return ended(false);
  } catch (error) {
    // Stopped on purpose while a gathered flush was written: every page counted above is stored
    // with its checkpoint.
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
