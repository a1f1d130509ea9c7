import type { DeadLetter, JsonObject, Sink, SinkNote, StreamTable, SyncRecord } from './sink.js';

/**
 * A flush as the sink's writes: the pages the engine gathered for one business and stream,
 * written together in parts of the sink's `maxBatchSize`, and what was stored of each page.
 */

/** One normalized page of a flush. */
export interface FlushPage {
  readonly records: readonly SyncRecord[];
  readonly deadLetters: readonly DeadLetter[];
  /** The stream's position after the page. */
  readonly position: JsonObject;
}

interface Flush {
  readonly businessId: string;
  readonly table: StreamTable;
  /** In the order they were read. */
  readonly pages: readonly FlushPage[];
  /** The position stored before the flush (undefined for a stream never synced): a part that completes no page carries it. */
  readonly storedPosition: JsonObject | undefined;
  /** False when no page has anything to store (an idle poll's page read again): nothing is written. */
  readonly writes: boolean;
}

/** What the sink stored of one page of a flush, in the flush's order. */
export interface PageStored {
  readonly written: number;
  readonly deadLettered: number;
  /** What the sink noted with the parts up to the one that completed the page, as it said it (a code may come twice). */
  readonly notes?: readonly SinkNote[];
}

export interface FlushOutcome {
  /** The pages stored with their checkpoint, in order: all of them, or those before a failed part. */
  readonly stored: readonly PageStored[];
  /** Rows the sink found already stored as they were, over the parts written. */
  readonly unchanged: number;
  /** The failure of a part, when one failed: the pages after `stored` were not stored. */
  readonly failure?: { readonly error: unknown };
}

/**
 * Writes `flush`: every page's records in one write, in order (the sink keeps one record per id,
 * the later), split in parts of the sink's `maxBatchSize`, the dead letters with the first part.
 * A part moves the checkpoint past the last page whose records it completes (a part that completes
 * none carries the stored position), so a cut-off in between repeats only pages not yet stored and
 * never skips a page's rest. A flush without records is still written once: its dead letters, and
 * the checkpoint past it. Never rejects: a failed part is reported with the pages stored before it.
 *
 * The counts of each write are given to the pages it completed in order (a page at most its own
 * records and dead letters); the flush's last page takes what is left (a record the sink refused,
 * one id kept of two pages). Straight-line code after the first write, so a traced page enters no
 * function of this file once it has reached the connector.
 */
export async function writeFlush(sink: Sink, flush: Flush): Promise<FlushOutcome> {
  const { pages } = flush;
  const batchSize = sink.capabilities.maxBatchSize;
  const single = pages.length === 1;
  const records: SyncRecord[] = [];
  const deadLetters: DeadLetter[] = [];
  // Where each page's records end in `records`.
  const ends: number[] = [];
  if (!single)
    for (const page of pages) {
      for (const record of page.records) records.push(record);
      for (const letter of page.deadLetters) deadLetters.push(letter);
      ends.push(records.length);
    }
  const all = single ? (pages[0] as FlushPage) : { records, deadLetters };
  const count = all.records.length;
  const stored: PageStored[] = [];
  let unchanged = 0;
  // The counts and notes written and not yet given to a page.
  let written = 0;
  let deadLettered = 0;
  let notes: SinkNote[] = [];
  for (let from = 0; from === 0 || from < count; from += batchSize) {
    const to = Math.min(from + batchSize, count);
    let complete = stored.length;
    if (to >= count) complete = pages.length;
    else if (!single) while (complete < pages.length && (ends[complete] as number) <= to) complete += 1;
    if (flush.writes) {
      try {
        const result = await sink.write(
          {
            businessId: flush.businessId,
            table: flush.table,
            records: from === 0 && to >= count ? all.records : all.records.slice(from, to),
            deadLetters: from === 0 ? all.deadLetters : [],
          },
          (complete > 0 ? (pages[complete - 1] as FlushPage).position : flush.storedPosition) ?? {},
        );
        written += result.written;
        deadLettered += result.deadLettered;
        unchanged += result.unchanged;
        if (result.notes !== undefined) for (const note of result.notes) notes.push(note);
      } catch (error) {
        return { stored, unchanged, failure: { error } };
      }
    }
    while (stored.length < complete) {
      const page = pages[stored.length] as FlushPage;
      const last = stored.length === pages.length - 1;
      const pageWritten = last ? written : Math.min(written, page.records.length);
      const pageDeadLettered = last ? deadLettered : Math.min(deadLettered, page.deadLetters.length);
      written -= pageWritten;
      deadLettered -= pageDeadLettered;
      if (stored.length === complete - 1 && notes.length > 0) {
        stored.push({ written: pageWritten, deadLettered: pageDeadLettered, notes });
        notes = [];
      } else stored.push({ written: pageWritten, deadLettered: pageDeadLettered });
    }
  }
  return { stored, unchanged };
}
