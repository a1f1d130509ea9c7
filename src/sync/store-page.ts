import type { JsonObject, Sink, SinkNote, WriteResult } from '../sink.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { chunk, toPageRecords } from './to-batch.js';
import type { WalkPage } from './walkers/index.js';

/**
 * Writes one page in parts of the sink's `maxBatchSize`. Only the last part moves the checkpoint
 * past the page (earlier parts carry the position before it), so a cut-off in between repeats the
 * page and never skips its rest.
 */
export async function storePage(
  sink: Sink,
  businessId: string,
  descriptor: StreamDescriptor,
  page: WalkPage,
  positionBefore: JsonObject | undefined,
): Promise<WriteResult> {
  const { records, deadLetters } = toPageRecords(businessId, descriptor.name, descriptor.source, page.items);
  const parts = chunk(records, sink.capabilities.maxBatchSize);
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
