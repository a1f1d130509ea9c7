import { chunks } from '../chunks.js';
import type { DeadLetter, JsonObject, RecordSource, Sink, SinkNote, SyncRecord, WriteResult } from '../sink.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import type { WalkItem, WalkPage } from './walkers/index.js';

/**
 * Writes one page in parts of the sink's `maxBatchSize`. Only the last part moves the checkpoint
 * past the page (earlier parts carry the position before it), so a cut-off in between repeats the
 * page and never skips its rest.
 */
export async function storePage(
  sink: Pick<Sink, 'capabilities' | 'write'>,
  businessId: string,
  descriptor: StreamDescriptor,
  page: WalkPage,
  positionBefore: JsonObject | undefined,
): Promise<WriteResult> {
  const { records, deadLetters } = toPageRecords(businessId, descriptor.name, descriptor.source, page.items);
  // A page without records is still written once: its dead letters, and the checkpoint past it.
  const parts = records.length === 0 ? [records] : chunks(records, sink.capabilities.maxBatchSize);
  const total = { written: 0, unchanged: 0, deadLettered: 0 };
  let notes: SinkNote[] | undefined;
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    const result = await sink.write(
      { businessId, table: descriptor.table, records: part, deadLetters: index === 0 ? deadLetters : [] },
      (last ? page.position : positionBefore) ?? {},
    );
    total.written += result.written;
    total.unchanged += result.unchanged;
    total.deadLettered += result.deadLettered;
    if (result.notes !== undefined) notes = addNotes(notes ?? [], result.notes);
  }
  return notes === undefined ? total : { ...total, notes };
}

/** `into` with `more` added, one note per code (counts summed, the first message kept). */
export function addNotes(into: readonly SinkNote[], more: readonly SinkNote[]): SinkNote[] {
  const byCode = new Map(into.map((note) => [note.code, note]));
  for (const note of more) {
    const known = byCode.get(note.code);
    byCode.set(note.code, known === undefined ? note : { ...known, count: known.count + note.count });
  }
  return [...byCode.values()];
}

interface PageRecords {
  readonly records: SyncRecord[];
  readonly deadLetters: DeadLetter[];
}

/**
 * Splits a page into records and dead letters, in page order. A repeated id is kept as it came:
 * the sink collapses repeats (the later copy wins) for every connector.
 */
export function toPageRecords(businessId: string, stream: string, source: RecordSource, items: readonly WalkItem[]): PageRecords {
  const records: SyncRecord[] = [];
  const deadLetters: DeadLetter[] = [];
  for (const { raw, result } of items) {
    if (result.ok) records.push({ businessId, id: result.id, source, fields: result.fields, raw });
    else deadLetters.push({ businessId, stream, reason: result.reason, raw });
  }
  return { records, deadLetters };
}
