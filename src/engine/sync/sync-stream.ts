import { setImmediate } from 'node:timers/promises';
import { canonicalJson, type NormalizeContext } from '../../normalize/index.js';
import type { Json, JsonObject, Sink, SinkNote, WriteResult } from '../../sink/sink.js';
import { hadInvalidUtf8 } from '../../source/upstream/index.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import type { StreamRunResult, SyncEventHandler } from './sync-event.js';
import { addNotes, mergedIds, replacedUtf8, storePage, type RewriteReason } from './store-page.js';
import { walkerFor, type Query, type RevisitSettings, type WalkPage, type WalkSettings } from '../../source/walkers/index.js';
import type { NormalizeResult } from '../../normalize/index.js';

/** Fetches one page's payload for this business; budget, retries and auth live behind it. */
export type FetchPayload = (descriptor: StreamDescriptor, query: Query) => Promise<JsonObject>;

export interface StreamRunOptions {
  readonly businessId: string;
  readonly descriptor: StreamDescriptor;
  readonly fetchPayload: FetchPayload;
  readonly sink: Sink;
  readonly normalizeContext: NormalizeContext;
  readonly paging: WalkSettings;
  /** Re-read records created within a window, for late upstream changes; undefined: never. */
  readonly revisit?: RevisitSettings;
  /**
   * Aborting stops the run: a page already fetched is stored first, a request in flight is given
   * up; either way the run returns `stopped` with what it stored, never a failure.
   */
  readonly signal?: AbortSignal;
  /** Hears `stream-start`, `page-stored` and `warning`. */
  readonly onEvent?: SyncEventHandler;
}

/**
 * Syncs one stream of one business from its stored checkpoint to the end of what upstream has.
 * Every page is stored together with the position after it, so a run cut off at any point
 * resumes where it stopped, repeating at most the page in flight.
 */
export async function syncStream(options: StreamRunOptions): Promise<StreamRunResult> {
  const { businessId, descriptor, sink } = options;
  const { createdAt } = descriptor;
  const stream = descriptor.name;
  const emit = options.onEvent ?? (() => undefined);
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    emit({ type: 'warning', businessId, stream, message });
  };
  // Every rewrite of a record on its way to the sink is said: a warning naming it, and a count.
  const rewritten = (reason: RewriteReason, said: { ids: readonly string[]; message: string } | undefined): void => {
    if (said === undefined || said.ids.length === 0) return;
    warn(said.message);
    emit({ type: 'rewrite', businessId, stream, reason, count: said.ids.length });
  };
  const normalize = (raw: Json) => descriptor.normalize(raw, options.normalizeContext);
  const fetch = async (query: Query): Promise<JsonObject> => {
    const payload = await options.fetchPayload(descriptor, query);
    if (hadInvalidUtf8(payload))
      rewritten(
        'invalid_utf8',
        replacedUtf8(payload, descriptor, (raw) => idOf(normalize(raw))),
      );
    return payload;
  };
  const totals = { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
  let notes: readonly SinkNote[] = [];
  // The sink's notes are summed over the run and shown once each, not once per page.
  const ended = (stopped: boolean): StreamRunResult => ({ ...totals, warnings, notes: notes.map((note) => `${note.count} ${note.message}`), stopped });
  const aborted = (): boolean => options.signal?.aborted === true;
  emit({ type: 'stream-start', businessId, stream });
  try {
    const stored = await sink.checkpoints.load(businessId, stream);
    const walk = walkerFor(descriptor.paging, options.revisit)(
      {
        descriptor,
        ...options.paging,
        revisit: options.revisit,
        fetch,
        normalize,
        ...(createdAt === undefined ? {} : { createdAt: (raw: Json) => createdAt(raw, options.normalizeContext) }),
        warn,
      },
      stored?.position,
    );

    let position = stored?.position;
    // One page ahead: the next request is in flight while this page is written, so the upstream
    // budget and the sink work at the same time. Pages are still stored strictly in order.
    let pending = walk.next();
    for (;;) {
      const step = await pending;
      if (step.done === true) break;
      const page = step.value;
      const stopping = aborted();
      const nothingToStore = unchanged(page, position);
      if (!stopping) {
        pending = walk.next();
        // If the write below fails, the prefetched page is dropped; its failure must not go unhandled.
        pending.catch(() => undefined);
        // Without a write there is nothing for the request to overlap: no hops (an idle poll's page).
        if (!nothingToStore) await requestOnTheWire();
      }
      if (page.warning !== undefined) warn(page.warning);
      rewritten('merged_id', mergedIds(page.items, descriptor));
      const result = nothingToStore ? NOTHING_WRITTEN : await storePage(sink, businessId, descriptor, page, position);
      position = page.position;
      totals.pages += 1;
      totals.records += page.items.length;
      totals.written += result.written;
      totals.unchanged += result.unchanged;
      totals.deadLettered += result.deadLettered;
      if (result.notes !== undefined) notes = addNotes(notes, result.notes);
      emit({
        type: 'page-stored',
        page: {
          businessId,
          stream,
          records: page.items.length,
          written: result.written,
          deadLettered: result.deadLettered,
          ...(result.notes === undefined ? {} : { notes: result.notes }),
          total: page.total,
        },
      });
      if (stopping || aborted()) {
        await pending.catch(() => undefined);
        await walk.return(undefined);
        return ended(true);
      }
    }
    return ended(false);
  } catch (error) {
    // An abort reaches a request in flight (or a wait for budget or a retry) as whatever that
    // threw ("This operation was aborted", an UpstreamError around it): the run was stopped on
    // purpose, and every page counted above is stored with its checkpoint.
    if (aborted()) return ended(true);
    throw error;
  }
}

function idOf(result: NormalizeResult): string | undefined {
  return result.ok ? result.id : undefined;
}

const NOTHING_WRITTEN: WriteResult = Object.freeze({ written: 0, unchanged: 0, deadLettered: 0 });

/**
 * An empty page that leaves the position where it is stored (an idle poll of most streams) has
 * nothing to store: no write transaction just to write the same checkpoint again.
 */
function unchanged(page: WalkPage, stored: JsonObject | undefined): boolean {
  return page.items.length === 0 && stored !== undefined && canonicalJson(page.position) === canonicalJson(stored);
}

/**
 * Lets the prefetched request leave before the page is stored. undici sends on a reused
 * keep-alive socket from a chain of up to two immediates (a turn before reusing the socket, then
 * one to see anything the server sent unasked), and storing a page is synchronous work: stored in
 * this turn, the next request left only after the write, and fetch and write ran in series. Three
 * check phases see that chain through even when the request was queued after the first hop.
 */
async function requestOnTheWire(): Promise<void> {
  for (let hop = 0; hop < 3; hop++) await setImmediate();
}
